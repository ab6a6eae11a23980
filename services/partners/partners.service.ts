/**
 * partners: an organization's counterparties. A partner is matched against the directory when it
 * is added (a company of this platform in the same mode is linked), French partners carry the
 * SIREN and the identifiers they are addressed by, and the documents exchanged with a partner come
 * from the documents service's search on every Peppol id it goes by.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { DomainError, rethrowAsDomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { lookupParticipant } from '../directory/directory.contract.ts';
import { search as searchDocuments } from '../documents/documents.contract.ts';
import { parsePeppolId, participantAliases, peppolIdFromVat } from '../../mappings/identifiers/peppol-id.ts';
import { countryOfVat, sirenOfFrenchVat } from '../../mappings/identifiers/vat.ts';
import { Partner } from './partner.entity.ts';
import * as contract from './partners.contract.ts';
import { likeContaining } from '../shared/pg-text.ts';

const FRENCH_SIREN_SCHEMES = ['0002', '0009', '0225'];

function frenchSiren(p: Partner): string | undefined {
  const fromVat = p.vatNumber ? sirenOfFrenchVat(p.vatNumber) : undefined;
  if (fromVat) return fromVat;
  const id = p.peppolId ? parsePeppolId(p.peppolId) : undefined;
  return id && FRENCH_SIREN_SCHEMES.includes(id.scheme) ? /^(\d{9})/.exec(id.identifier)?.[1] : undefined;
}

function partnerView(p: Partner): contract.PartnerView {
  const siren = frenchSiren(p);
  return {
    id: p.id, name: p.name, country: p.country ?? null, vatNumber: p.vatNumber ?? null, peppolId: p.peppolId ?? null, role: p.role,
    onPlatform: p.partnerCompanyId != null, partnerOrganizationId: p.partnerOrganizationId ?? null, partnerCompanyId: p.partnerCompanyId ?? null,
    enrichment: siren ? { siren, peppolIds: participantAliases(p.peppolId ?? `0009:${siren}`) } : null,
    metadata: p.metadata ?? null, createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString(),
  };
}

const scopeOf = (auth: Principal) => ({ organizationId: auth.organizationId, livemode: auth.livemode });

async function findPartner(ctx: Context<{ id: string }>): Promise<Partner> {
  const partner = await emOf(ctx).findOne(Partner, { id: ctx.params.id, ...scopeOf(principalOf(ctx)) });
  if (!partner) throw new DomainError('RESOURCE_NOT_FOUND', `Partner '${ctx.params.id}' was not found`);
  return partner;
}

/** The VAT number's own Peppol id, or a clear 400. */
function peppolIdOfVat(vatNumber: string): string {
  try {
    return peppolIdFromVat(vatNumber);
  } catch (err) {
    return rethrowAsDomainError(err);
  }
}

async function createPartner(ctx: Context<contract.CreatePartnerParams>): Promise<Partner> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  if (!p.vatNumber && !p.peppolId) throw new DomainError('MISSING_FIELD', 'A partner needs vatNumber or peppolId', { details: [{ field: 'vatNumber', rule: 'required', message: 'vatNumber or peppolId is required' }] });
  const derived = p.vatNumber ? peppolIdOfVat(p.vatNumber) : undefined;
  const parsed = p.peppolId ? parsePeppolId(p.peppolId) : undefined;
  if (p.peppolId && !parsed) throw new DomainError('INVALID_REQUEST', 'peppolId must be `<scheme>:<identifier>` (e.g. 0208:0403170701)', { details: [{ field: 'peppolId', rule: 'peppolId', message: 'not <scheme>:<identifier>' }] });
  const peppolId = parsed ? `${parsed.scheme}:${parsed.identifier}` : derived!;
  // Matched against the directory before anything is written (a remote call holds no transaction).
  const onPlatform = await call(ctx, lookupParticipant, { participant: { peppolId }, livemode: auth.livemode });
  const name = p.name ?? onPlatform?.name;
  if (!name) throw new DomainError('MISSING_FIELD', 'name is required for a partner that is not a company of this platform', { details: [{ field: 'name', rule: 'required', message: 'name is required' }] });
  const em = emOf(ctx);
  const partner = em.create(Partner, {
    id: newId('partner'), ...scopeOf(auth), name, role: p.role, vatNumber: p.vatNumber ?? null, peppolId,
    country: p.country ?? (p.vatNumber ? countryOfVat(p.vatNumber) : undefined) ?? onPlatform?.country ?? null,
    partnerOrganizationId: onPlatform?.organizationId ?? null, partnerCompanyId: onPlatform?.companyId ?? null, metadata: p.metadata ?? null,
  });
  try {
    await em.flush();
  } catch (err) {
    if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
    const existing = await em.fork().findOne(Partner, { ...scopeOf(auth), $or: [...(p.vatNumber ? [{ vatNumber: p.vatNumber }] : []), { peppolId: { $ilike: peppolId } }] });
    throw new DomainError('COMPANY_EXISTS', `${p.vatNumber ?? peppolId} is already a partner`, { extra: { existingId: existing?.id ?? 'unknown' } });
  }
  return partner;
}

const PartnersService: ServiceSchema = {
  name: 'partners',
  mixins: [OrmMixin],

  actions: {
    createPartner: implement(contract.createPartner, async (ctx) => partnerView(await createPartner(ctx))),

    listPartners: implement(contract.listPartners, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const where: Record<string, unknown> = scopeOf(auth);
      if (ctx.params.role) where.role = ctx.params.role === 'both' ? 'both' : { $in: [ctx.params.role, 'both'] };
      if (ctx.params.country) where.country = ctx.params.country;
      if (ctx.params.q?.trim()) {
        const like = likeContaining(ctx.params.q.trim());
        where.$or = [{ name: { $ilike: like } }, { vatNumber: { $ilike: like } }, { peppolId: { $ilike: like } }];
      }
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(Partner, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, partnerView);
    }),

    getPartner: implement(contract.getPartner, async (ctx) => partnerView(await findPartner(ctx))),

    updatePartner: implement(contract.updatePartner, async (ctx) => {
      const partner = await findPartner(ctx);
      const p = ctx.params;
      if (p.name !== undefined) partner.name = p.name;
      if (p.role !== undefined) partner.role = p.role;
      if (p.country !== undefined) partner.country = p.country;
      if (p.metadata !== undefined) partner.metadata = p.metadata;
      await emOf(ctx).flush();
      return partnerView(partner);
    }),

    deletePartner: implement(contract.deletePartner, async (ctx) => {
      const partner = await findPartner(ctx);
      await emOf(ctx).nativeDelete(Partner, { id: partner.id });
      return { id: partner.id, deleted: true as const };
    }),

    partnerDocuments: implement(contract.partnerDocuments, async (ctx) => {
      const partner = await findPartner(ctx);
      const ids = partner.peppolId ? participantAliases(partner.peppolId) : [];
      return call(ctx, searchDocuments, {
        filters: { $or: [{ senderPeppolId: { $in: ids } }, { receiverPeppolId: { $in: ids } }] },
        sort: { createdAt: 'desc' },
        ...(ctx.params.limit !== undefined ? { limit: ctx.params.limit } : {}), ...(ctx.params.cursor !== undefined ? { cursor: ctx.params.cursor } : {}),
      });
    }),
  },
};

export default PartnersService;
