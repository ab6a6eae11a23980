/**
 * directory: who is reachable. `lookupParticipant` answers for the participants of this platform
 * (the companies tenancy holds; the connectors' hosts ask it); `verify` asks the networks the
 * caller's mode reaches, through the connectors' discovery, and keeps answers a moment; `search`
 * lists the participants this platform registered. It keeps no table of its own yet: the SMP/SML
 * discovery cache will be its first.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { encodeCursor, readPageRequest, toPage, type Page, type PageRequest } from '../shared/pagination.ts';
import { loadConfig } from '../shared/config.ts';
import { searchPeppolDirectory } from './peppol-directory.ts';
import { discoverRecipient, registeredManifests, verifyingConnectors } from '../connectors/adapters.contract.ts';
import { findParticipant, searchParticipants, frenchCompanies as tenancyFrenchCompanies } from '../tenancy/tenancy.contract.ts';
import { DOCUMENT_TYPES } from '../documents/documents.contract.ts';
import { parsePeppolId } from '../../mappings/identifiers/peppol-id.ts';
import { lookupParticipant, search, verify, frenchCompanies, PLATFORM_DOCUMENT_TYPES, type DirectoryListing, type Verification } from './directory.contract.ts';

/** How long a verification is kept: a positive answer, a negative one (a participant may register any time). */
const POSITIVE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 15_000;
const MAX_CACHED = 10_000;

/** `INVOICE`, `CREDIT_NOTE` and `invoice`, `credit-note` name the same API type. */
function apiDocumentType(name: string): string | undefined {
  const type = name.trim().toLowerCase().replace(/_/g, '-');
  return (DOCUMENT_TYPES as readonly string[]).includes(type) && type !== 'event' ? type : undefined;
}

const invalid = (field: string, message: string) => new DomainError('INVALID_REQUEST', message, { details: [{ field, rule: field, message }] });

type DirectoryThis = { verifications: Map<string, { answer: Omit<Verification, 'cached'>; until: number }> };

async function verifyParticipant(this: DirectoryThis, ctx: Context<{ peppolId: string; documentType: string }>): Promise<Verification> {
  const auth = principalOf(ctx);
  const parsed = parsePeppolId(ctx.params.peppolId);
  if (!parsed) throw invalid('peppolId', 'peppolId must be `<scheme>:<identifier>`, the scheme four digits (ISO 6523 ICD), e.g. 0208:0403170701');
  const documentType = apiDocumentType(ctx.params.documentType);
  if (!documentType) throw invalid('documentType', `documentType must be one of ${DOCUMENT_TYPES.filter((d) => d !== 'event').join(', ')} (or its upper-case name, e.g. INVOICE)`);
  const peppolId = `${parsed.scheme}:${parsed.identifier}`;
  const key = `${auth.livemode}|${peppolId.toLowerCase()}|${documentType}`;
  const now = Date.now();
  const kept = this.verifications.get(key);
  if (kept && kept.until > now) return { ...kept.answer, cached: true };

  const candidates = verifyingConnectors(registeredManifests(ctx.broker), { livemode: auth.livemode, documentType });
  if (!candidates.length) throw new DomainError('UPSTREAM_UNAVAILABLE', `No network connector serves ${auth.livemode ? 'live' : 'test'} ${documentType} documents on this deployment`, { retryAfter: 60 });
  const { manifest, check } = await discoverRecipient(ctx, candidates, { recipient: { peppolId }, documentType, livemode: auth.livemode });
  const answer = {
    peppolId, documentType, registered: check.known, canReceive: check.known && check.canReceive, documentTypes: check.documentTypes,
    name: check.name ?? null, country: check.country ?? null, network: manifest.id, endpoint: check.endpoint ?? null, checkedAt: systemClock.now().toISOString(),
  };
  if (this.verifications.size >= MAX_CACHED) this.verifications.delete(this.verifications.keys().next().value!);
  this.verifications.set(key, { answer, until: now + (answer.canReceive ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
  return { ...answer, cached: false };
}

/** `source=peppol`: one page of the configured Peppol Directory (the cursor holds its page index). */
async function searchPeppol(params: { q?: string; country?: string }, page: PageRequest): Promise<Page<DirectoryListing>> {
  const source = loadConfig().peppolDirectory;
  if (!source) throw new DomainError('UPSTREAM_UNAVAILABLE', 'No Peppol Directory is configured on this deployment (EINV_PEPPOL_DIRECTORY_URL)', { retryAfter: 3600 });
  if (!params.q && !params.country) throw invalid('q', 'source=peppol needs q or country: the Peppol Directory does not list everyone');
  const index = page.after === undefined ? 0 : Number(page.after);
  if (!Number.isInteger(index) || index < 0) throw invalid('cursor', 'The cursor is not one of the Peppol Directory\'s pages; pass the cursor of a previous page or omit it');
  const { rows, hasMore } = await searchPeppolDirectory(source.url, params, index, page.limit, source.timeoutMs);
  return { data: rows, hasMore, cursor: hasMore ? encodeCursor(String(index + 1)) : null };
}

const DirectoryService: ServiceSchema = {
  name: 'directory',

  created() {
    (this as unknown as DirectoryThis).verifications = new Map();
  },

  actions: {
    lookupParticipant: implement(lookupParticipant, async (ctx) => {
      const company = await call(ctx, findParticipant, ctx.params);
      if (!company) return null;
      return {
        organizationId: company.organizationId, companyId: company.id, peppolId: company.peppolId, name: company.name, country: company.country,
        documentTypes: [...PLATFORM_DOCUMENT_TYPES],
      };
    }),

    frenchCompanies: implement(frenchCompanies, async (ctx) => call(ctx, tenancyFrenchCompanies, { ...ctx.params, livemode: principalOf(ctx).livemode })),

    verify: implement(verify, async function (this: DirectoryThis, ctx) { return verifyParticipant.call(this, ctx); }),

    search: implement(search, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      if (ctx.params.source === 'peppol') return searchPeppol(ctx.params, page);
      const rows = await call(ctx, searchParticipants, {
        livemode: auth.livemode, limit: page.limit + 1, ...(ctx.params.q ? { query: ctx.params.q } : {}), ...(ctx.params.country ? { country: ctx.params.country } : {}), ...(page.after ? { after: page.after } : {}),
      });
      return toPage(rows, page, (r) => r.id, (r) => ({ peppolId: r.peppolId!, name: r.name, country: r.country, documentTypes: [...PLATFORM_DOCUMENT_TYPES] }));
    }),
  },
};

export default DirectoryService;
