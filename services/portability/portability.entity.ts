import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ROUTING_ROLES = ['GAINING_PA', 'LOSING_PA'] as const;
export type RoutingRole = (typeof ROUTING_ROLES)[number];

/**
 * A portability request: who filed it and where its evidence chain ends. Nothing here says what
 * state it is in — that is folded from the chain (evidence-chain.ts, fold.ts). `headSeq` and
 * `headHash` pin the chain's end, so a last row taken away is noticed too.
 */
export const PortabilityRequest = defineEntity({
  name: 'PortabilityRequest',
  tableName: 'portability_requests',
  properties: {
    requestRef: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    /** The company whose business clock the legal clocks run on (the sandbox moves it); null: wall time. */
    clockCompanyId: p.string().nullable(),
    siren: p.string().length(9).nullable(),
    headSeq: p.integer(),
    headHash: p.string().length(64),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'portability_requests_org_index', properties: ['organizationId', 'livemode', 'requestRef'] }],
});
export type PortabilityRequest = InferEntity<typeof PortabilityRequest>;

/** One fact of a request's evidence chain (evidence-chain.ts says what each column proves). */
export const PortabilityEvidence = defineEntity({
  name: 'PortabilityEvidence',
  tableName: 'portability_evidence',
  properties: {
    requestRef: p.string().primary(),
    seq: p.integer().primary(),
    kind: p.string(),
    payload: p.json<Record<string, unknown>>(),
    /** Millisecond precision (timestamptz(3)): the hash covers the value as JavaScript reads it. */
    recordedAt: p.datetime().length(3),
    previousHash: p.string().length(64),
    hash: p.string().length(64),
  },
});
export type PortabilityEvidence = InferEntity<typeof PortabilityEvidence>;

/** A file of a request: the rendered agreement, or the signed mandate a caller deposited. */
export const PortabilityFile = defineEntity({
  name: 'PortabilityFile',
  tableName: 'portability_files',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    requestRef: p.string(),
    kind: p.enum(['agreement', 'signed_mandate'] as const),
    filename: p.string(),
    contentType: p.string(),
    content: p.blob(),
    sha256: p.string().length(64),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'portability_files_request_index', properties: ['requestRef'] }],
});
export type PortabilityFile = InferEntity<typeof PortabilityFile>;

/**
 * A routing switch for a SIREN (one per SIREN, organization and mode): as the gaining platform its
 * address is valid from the effective date; as the losing one emission stops on that date and
 * reception stays open until `serviceUntil`.
 */
export const PortabilityRouting = defineEntity({
  name: 'PortabilityRouting',
  tableName: 'portability_routings',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    connectionId: p.string().nullable(),
    siren: p.string().length(9),
    siret: p.string().length(14).nullable(),
    role: p.enum(ROUTING_ROLES),
    effectiveDate: p.string().length(10),
    serviceUntil: p.string().length(10).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'portability_routings_siren_index', properties: ['livemode', 'siren'] }],
  uniques: [{ name: 'portability_routings_siren_unique', properties: ['organizationId', 'livemode', 'siren'] }],
});
export type PortabilityRouting = InferEntity<typeof PortabilityRouting>;
