/**
 * Company suggestions for a switch (GET /v1/portability/companies): `q` read as an identifier
 * (direct lookup) or a name (ranked suggestions), answered by the directory service: this
 * platform's participants in the caller's mode, and the Peppol Directory when configured.
 *
 * A bare number is an identifier only with a country whose register the Peppol network addresses
 * by that number (FR SIREN/SIRET, the countries whose Peppol scheme is their company number, NL
 * KvK); for any other country no scheme is invented and `query.note` says why.
 */
import type { Context } from 'moleculer';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { lookupParticipant, search as directorySearch, type DirectoryListing } from '../directory/directory.contract.ts';
import { ICD_BY_VAT_PREFIX, parsePeppolId, peppolIdFromVat, countryOfPeppolId } from '../../mappings/identifiers/peppol-id.ts';
import { VAT_API_PATTERN, isValidVatNumber } from '../../mappings/identifiers/vat.ts';
import { normaliseName } from './platform-registry.ts';
import type { CompanyQuery, CompanySuggestion } from './portability-messages.contract.ts';

const MAX_SUGGESTIONS = 20;

/** The Peppol id a bare number stands for in a country, or why there is none. */
export function registerIdentifier(country: string, digits: string): { peppolId: string } | { note: string } {
  if (country === 'FR') {
    if (/^\d{9}$/.test(digits)) return { peppolId: `0009:${digits}` };
    if (/^\d{14}$/.test(digits)) return { peppolId: `0009:${digits.slice(0, 9)}` };
    return { note: 'A French company number is a SIREN (9 digits) or a SIRET (14 digits)' };
  }
  if (country === 'NL') return /^\d{8}$/.test(digits) ? { peppolId: `0106:${digits}` } : { note: 'A Dutch KvK number has 8 digits' };
  const rule = ICD_BY_VAT_PREFIX[country === 'GR' ? 'EL' : country];
  // Where the country's Peppol scheme is its company number (the VAT digits themselves), the number is the identifier.
  if (rule && rule.identifier(`${country === 'GR' ? 'EL' : country}${digits}`) === digits) return { peppolId: `${rule.scheme}:${digits}` };
  return { note: `No Peppol register scheme takes a bare ${country} number; give the VAT number (with its ${country === 'GR' ? 'EL' : country} prefix) or a Peppol id` };
}

export function readQuery(q: string, country: string | undefined): CompanyQuery {
  const text = q.trim();
  const base = { q: text, country: country ?? null };
  const peppol = parsePeppolId(text);
  if (peppol) return { ...base, kind: 'peppolId', peppolId: `${peppol.scheme}:${peppol.identifier}`, note: null };
  const compact = text.replace(/[\s.-]/g, '').toUpperCase();
  if (VAT_API_PATTERN.test(compact) && /\d/.test(compact) && compact.slice(0, 2) in ICD_BY_VAT_PREFIX && isValidVatNumber(compact)) {
    return { ...base, kind: 'vatNumber', peppolId: peppolIdFromVat(compact), note: null };
  }
  if (/^\d+$/.test(compact)) {
    if (!country) return { ...base, kind: 'registrationNumber', peppolId: null, note: 'A bare number needs `country` to say which register it is from' };
    const found = registerIdentifier(country, compact);
    return 'peppolId' in found ? { ...base, kind: 'registrationNumber', peppolId: found.peppolId, note: null } : { ...base, kind: 'registrationNumber', peppolId: null, note: found.note };
  }
  return { ...base, kind: 'name', peppolId: null, note: null };
}

/** 1 exact, 0.8 prefix, 0.6 a word's prefix, 0.4 anywhere, 0.2 otherwise (the directory matched on another field). */
export function nameScore(query: string, name: string): number {
  const q = normaliseName(query);
  const n = normaliseName(name);
  if (!q) return 0.2;
  if (n === q) return 1;
  if (n.startsWith(q)) return 0.8;
  if (n.split(' ').some((w) => w.startsWith(q))) return 0.6;
  return n.includes(q) ? 0.4 : 0.2;
}

interface SourceAnswer { source: string; available: boolean; message: string | null }

async function peppolDirectory(ctx: Context, q: string, country: string | undefined): Promise<{ rows: DirectoryListing[]; answer: SourceAnswer }> {
  try {
    const page = await call(ctx, directorySearch, { q, ...(country ? { country } : {}), source: 'peppol', limit: MAX_SUGGESTIONS });
    return { rows: page.data, answer: { source: 'peppol-directory', available: true, message: null } };
  } catch (err) {
    return { rows: [], answer: { source: 'peppol-directory', available: false, message: (err as Error).message } };
  }
}

export async function suggestCompanies(ctx: Context, q: string, country: string | undefined) {
  const auth = principalOf(ctx);
  const query = readQuery(q, country);
  const sources: SourceAnswer[] = [];
  const found = new Map<string, CompanySuggestion>();
  const add = (s: CompanySuggestion) => {
    const key = s.peppolId.toLowerCase();
    const kept = found.get(key);
    if (!kept || kept.score < s.score) found.set(key, s);
  };
  if (query.kind !== 'name') {
    if (query.peppolId) {
      const onPlatform = await call(ctx, lookupParticipant, { participant: { peppolId: query.peppolId }, livemode: auth.livemode });
      sources.push({ source: 'platform', available: true, message: null });
      if (onPlatform?.peppolId) add({ name: onPlatform.name, country: onPlatform.country ?? null, peppolId: onPlatform.peppolId, source: 'platform', score: 1 });
      const remote = await peppolDirectory(ctx, query.peppolId, undefined);
      sources.push(remote.answer);
      for (const r of remote.rows) if (r.peppolId.toLowerCase() === query.peppolId.toLowerCase()) add({ name: r.name, country: r.country || countryOfPeppolId(r.peppolId) || null, peppolId: r.peppolId, source: 'peppol-directory', score: 1 });
    }
  } else {
    const local = await call(ctx, directorySearch, { q: query.q, ...(country ? { country } : {}), source: 'platform', limit: MAX_SUGGESTIONS });
    sources.push({ source: 'platform', available: true, message: null });
    for (const r of local.data) add({ name: r.name, country: r.country || null, peppolId: r.peppolId, source: 'platform', score: nameScore(query.q, r.name) });
    const remote = await peppolDirectory(ctx, query.q, country);
    sources.push(remote.answer);
    for (const r of remote.rows) add({ name: r.name, country: r.country || null, peppolId: r.peppolId, source: 'peppol-directory', score: nameScore(query.q, r.name) });
  }
  const data = [...found.values()].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, MAX_SUGGESTIONS);
  return { data, query, sources };
}
