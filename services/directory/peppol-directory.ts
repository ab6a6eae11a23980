/**
 * The Peppol Directory (the network's business-card index, directory.peppol.eu and its test twin)
 * as a search source: `GET <base>/search/1.0/json?q=&country=&rpi=&rpc=`, its matches turned into
 * our directory listings. The Directory holds only participants whose SMP published a business
 * card, so absence there is not proof a company is not on Peppol (verify asks the SML and SMP).
 */
import { request } from 'undici';
import { DomainError } from '../shared/errors.ts';
import { PARTICIPANT_SCHEME, apiTypeOfDocumentId } from '../../mappings/identifiers/peppol-network.ts';

export interface DirectoryListingRow { peppolId: string; name: string; country: string; documentTypes: string[] }

interface DirectoryMatch {
  participantID?: { scheme?: string; value?: string };
  docTypes?: Array<{ scheme?: string; value?: string }>;
  entities?: Array<{ name?: Array<{ name?: string }> | string; countryCode?: string }>;
}
interface DirectoryAnswer { 'total-result-count'?: number; matches?: DirectoryMatch[] }

function listingOf(m: DirectoryMatch): DirectoryListingRow | undefined {
  if (!m.participantID?.value || (m.participantID.scheme && m.participantID.scheme !== PARTICIPANT_SCHEME)) return undefined;
  const entity = m.entities?.[0];
  const name = Array.isArray(entity?.name) ? entity.name[0]?.name : entity?.name;
  const documentTypes = [...new Set((m.docTypes ?? []).map((d) => apiTypeOfDocumentId(d.value ?? '')).filter((t) => t !== undefined))];
  return { peppolId: m.participantID.value, name: name ?? m.participantID.value, country: entity?.countryCode ?? '', documentTypes };
}

/** One page (0-based) of the Directory's answer to `q` / `country`, and whether more follow. */
export async function searchPeppolDirectory(baseUrl: string, query: { q?: string; country?: string }, page: number, limit: number, timeoutMs: number): Promise<{ rows: DirectoryListingRow[]; hasMore: boolean }> {
  const params = new URLSearchParams({ rpi: String(page), rpc: String(limit) });
  if (query.q) params.set('q', query.q);
  if (query.country) params.set('country', query.country);
  let answer: DirectoryAnswer;
  try {
    const res = await request(`${baseUrl.replace(/\/+$/, '')}/search/1.0/json?${params}`, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    if (res.statusCode !== 200) { await res.body.dump(); throw new Error(`HTTP ${res.statusCode}`); }
    answer = await res.body.json() as DirectoryAnswer;
  } catch (err) {
    throw new DomainError('UPSTREAM_UNAVAILABLE', `The Peppol Directory could not answer: ${(err as Error).message}`, { retryAfter: 30 });
  }
  const rows = (answer.matches ?? []).map(listingOf).filter((r) => r !== undefined);
  const total = answer['total-result-count'] ?? rows.length;
  return { rows, hasMore: (page + 1) * limit < total };
}
