import { monotonicFactory } from 'ulid';

/**
 * Public identifiers are `<prefix>_<ULID>`: unique across replicas without coordination, and
 * lexicographically ordered by creation time, which keyset pagination relies on.
 */
export const ID_PREFIXES = {
  organization: 'org',
  company: 'comp',
  apiKey: 'key',
  request: 'req',
  event: 'evt',
  delivery: 'dlv',
  document: 'doc',
  webhook: 'wh',
  integration: 'int',
  technicalAccount: 'tacc',
  membership: 'mbr',
  signingKey: 'sig',
  file: 'file',
  note: 'note',
  partner: 'ptn',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

const ulid = monotonicFactory();

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}
