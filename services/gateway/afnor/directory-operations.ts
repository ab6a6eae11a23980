/**
 * The AFNOR XP Z12-013 Directory Service 1.3.0 operations, on the French companies this platform
 * reaches (directory service → tenancy). Searches look at most MAX_SCANNED companies: what the
 * database can filter (SIREN, SIRET, name, postal code, locality) is filtered there, the rest on the
 * entries built from them; `limit` / `ignore` page the entries, `totalNumberOfResults` counts them.
 */
import * as directory from '../../directory/directory.contract.ts';
import type { FrenchCompaniesParams, TextMatch } from '../../tenancy/tenancy.contract.ts';
import { DomainError } from '../../shared/errors.ts';
import { frenchEntity, matches, pageOf, pick, sortRows, type FrenchEntity, type Match } from './directory-lines.ts';
import { checkBody, listParam, notFound, type AfnorCall, type AfnorOperation } from './operation.ts';

const DIRECTORY = 'directory-service';
/** Annex B declares these for every operation, and a `default` answer. */
const DECLARED = [200, 400, 401, 403, 404, 408, 422, 429, 500, 501, 503];
const MAX_SCANNED = 1000;
const DEFAULT_LIMIT = 100;
/** Directory reads need the scope /v1/directory needs. */
const ACCESS = { access: 'directory' } as const;

const SIREN_FIELDS = ['siren', 'businessName', 'entityType', 'administrativeStatus', 'instructions'] as const;
const SIRET_FIELDS = ['siret', 'siren', 'name', 'facilityType', 'administrativeStatus', 'siretInstructions', 'address', 'pmStatus', 'pmOnly', 'managesPaymentStatus', 'managesLegalCommitment', 'managesLegalCommitmentOrService', 'serviceCodeStatus'] as const;
const ROUTING_FIELDS = ['siret', 'routingIdentifierType', 'routingCodeName', 'routingIdentifier', 'managesLegalCommitmentCode', 'administrativeStatus', 'address'] as const;
const LINE_FIELDS = ['addressingIdentifier', 'siren', 'siret', 'routingIdentifier', 'addressingSuffix'] as const;

const op = (values: readonly string[]) => ({ type: 'enum', values: [...values], optional: true });
const filter = (ops: readonly string[], value: Record<string, unknown>) => ({ type: 'object', optional: true, strict: true, props: { op: op(ops), value: { optional: true, ...value } } });
const digits = (max: number) => ({ type: 'string', max, pattern: /^[0-9]*$/ });
const text = (max: number) => ({ type: 'string', max });
const ALL = ['contains', 'strict', 'startWith'];
const sorting = (fields: readonly string[]) => ({ type: 'array', optional: true, max: 10, items: { type: 'object', strict: true, props: { field: op(fields), order: op(['ascending', 'descending']) } } });
const fields = (values: readonly string[]) => ({ type: 'array', optional: true, max: 20, items: { type: 'enum', values: [...values] } });
const include = (values: readonly string[]) => ({ type: 'array', optional: true, max: 5, items: { type: 'enum', values: [...values] } });
const paging = { limit: { type: 'number', integer: true, min: 0, max: 2_147_483_647, optional: true }, ignore: { type: 'number', integer: true, min: 0, max: 2_147_483_647, optional: true } };

const SIREN_SEARCH = {
  $$strict: true, ...paging, sorting: sorting(SIREN_FIELDS), fields: fields(SIREN_FIELDS),
  filters: { type: 'object', optional: true, strict: true, props: {
    siren: filter(['strict'], digits(9)), businessName: filter(ALL, text(150)),
    entityType: filter(['strict'], { type: 'enum', values: ['Public', 'PrivateVatRegistered'] }), administrativeStatus: filter(['strict'], { type: 'enum', values: ['A', 'C'] }),
  } },
};
const SIRET_SEARCH = {
  $$strict: true, ...paging, sorting: sorting(SIRET_FIELDS), fields: fields(SIRET_FIELDS), include: include(['siren']),
  filters: { type: 'object', optional: true, strict: true, props: {
    siret: filter(['strict'], digits(14)), siren: filter(['strict'], digits(9)), facilityType: filter(['strict'], { type: 'enum', values: ['P', 'S'] }),
    name: filter(ALL, text(100)), addressLines: filter(['contains', 'startWith'], text(600)), postalCode: filter(['startWith', 'strict'], digits(5)),
    countrySubdivision: filter(['strict'], text(255)), locality: filter(ALL, text(100)), administrativeStatus: filter(['strict'], { type: 'enum', values: ['A', 'C'] }),
  } },
};
const ROUTING_SEARCH = {
  $$strict: true, ...paging, sorting: sorting(ROUTING_FIELDS), fields: fields(ROUTING_FIELDS), include: include(['siren', 'siret']),
  filters: { type: 'object', optional: true, strict: true, props: {
    routingIdentifier: filter(['contains', 'strict'], text(100)), siret: filter(['strict'], digits(14)), routingCodeName: filter(['contains', 'strict'], text(100)),
    administrativeStatus: filter(['strict'], { type: 'enum', values: ['A', 'C'] }), addressLines: filter(['contains', 'startWith'], text(600)),
    postalCode: filter(['startWith', 'strict'], digits(5)), locality: filter(ALL, text(100)),
  } },
};
const LINE_SEARCH = {
  $$strict: true, ...paging, sorting: sorting(LINE_FIELDS), fields: fields(LINE_FIELDS), include: include(['siren', 'siret', 'routingCode']),
  filters: { type: 'object', optional: true, strict: true, props: {
    addressingIdentifier: filter(['contains', 'strict'], text(125)), siren: filter(['strict'], digits(9)), siret: filter(['strict'], digits(14)),
    routingIdentifier: filter(['contains', 'strict'], text(100)), addressingSuffix: filter(['contains', 'strict'], text(100)),
  } },
};

type Filters = Record<string, Match | undefined>;
interface SearchBody { filters?: Filters; sorting?: Array<{ field?: string; order?: string }>; fields?: string[]; include?: string[]; limit?: number; ignore?: number }

const strictValue = (m: Match | undefined) => (m?.value && (m.op ?? 'strict') === 'strict' ? m.value : undefined);
const textMatch = (m: Match | undefined): TextMatch | undefined => (m?.value ? { op: (m.op ?? 'strict') as TextMatch['op'], value: m.value } : undefined);

/** The companies the database can narrow to, as directory entities. */
async function entities(call: AfnorCall, query: Omit<FrenchCompaniesParams, 'livemode' | 'limit' | 'offset'>): Promise<FrenchEntity[]> {
  const clean = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as typeof query;
  const { rows } = await call.run(directory.frenchCompanies, { ...clean, limit: MAX_SCANNED, offset: 0 }, ACCESS);
  return rows.map(frenchEntity).filter((e): e is FrenchEntity => e !== undefined);
}

function answer<T extends object>(search: SearchBody, rows: T[], fieldNames: readonly string[] | undefined) {
  const sorted = sortRows(rows, search.sorting);
  const page = pageOf(sorted, search.limit ?? DEFAULT_LIMIT, search.ignore);
  return { status: 200, json: { search, totalNumberOfResults: rows.length, results: page.map((r) => pick(r, fieldNames)) } };
}

function searchBody(call: AfnorCall, schema: Record<string, unknown>): SearchBody {
  const body = call.request.json ?? {};
  checkBody(schema, body);
  return body as SearchBody;
}

/** One entity per SIREN (a multi-SIRET company shows once). */
function legalUnits(list: FrenchEntity[]) {
  const seen = new Map<string, FrenchEntity['legalUnit']>();
  for (const e of list) if (!seen.has(e.legalUnit.siren)) seen.set(e.legalUnit.siren, e.legalUnit);
  return [...seen.values()];
}

function facilityPayload(e: FrenchEntity, withSiren: boolean) {
  return { ...e.facility!, ...(withSiren ? { legalUnit: e.legalUnit } : {}) };
}

function routingPayload(e: FrenchEntity, rc: FrenchEntity['routingCodes'][number], inc: readonly string[]) {
  return { ...rc, ...(inc.includes('siren') ? { legalUnit: e.legalUnit } : {}), ...(inc.includes('siret') && e.facility ? { facility: e.facility } : {}) };
}

function linePayloads(e: FrenchEntity, inc: readonly string[]) {
  return e.lines.map((line) => {
    const rc = line.routingIdentifier ? e.routingCodes.find((r) => r.routingIdentifier === line.routingIdentifier) : undefined;
    return {
      ...line,
      ...(inc.includes('siren') ? { legalUnit: e.legalUnit } : {}),
      ...(inc.includes('siret') && line.siret && e.facility ? { facility: e.facility } : {}),
      ...(inc.includes('routingCode') && rc ? { routingCode: { routingIdentifier: rc.routingIdentifier, routingIdentifierType: rc.routingIdentifierType, routingCodeName: rc.routingCodeName, managesLegalCommitment: rc.managesLegalCommitmentCode, administrativeStatus: rc.administrativeStatus, address: rc.address } } : {}),
    };
  });
}

function pathDigits(call: AfnorCall, name: string, length: number): string {
  const value = call.request.path[name]!;
  if (!new RegExp(`^[0-9]{${length}}$`).test(value)) throw new DomainError('INVALID_REQUEST', `${name} must be ${length} digits`, { details: [{ field: name, rule: 'pattern', message: `${length} digits` }] });
  return value;
}

export const DIRECTORY_OPERATIONS: readonly AfnorOperation[] = [
  {
    service: DIRECTORY, operationId: 'searchCompanyBySiren', method: 'POST', path: '/v1/siren/search', declared: DECLARED, body: 'json',
    async handle(call) {
      const search = searchBody(call, SIREN_SEARCH);
      const f = search.filters ?? {};
      const list = await entities(call, { siren: strictValue(f.siren), name: textMatch(f.businessName) });
      const rows = legalUnits(list).filter((u) => matches(u.siren, f.siren) && matches(u.businessName, f.businessName) && matches(u.entityType, f.entityType) && matches(u.administrativeStatus, f.administrativeStatus));
      return answer(search, rows, search.fields);
    },
  },
  {
    service: DIRECTORY, operationId: 'getCompanyBySiren', method: 'GET', path: '/v1/siren/code-insee:{siren}', declared: DECLARED,
    async handle(call) {
      const siren = pathDigits(call, 'siren', 9);
      const fieldNames = listParam(call.request.query, 'fields', SIREN_FIELDS);
      const unit = legalUnits(await entities(call, { siren })).find((u) => u.siren === siren);
      if (!unit) throw notFound(`SIREN ${siren}`);
      return { status: 200, json: pick(unit, fieldNames) };
    },
  },
  {
    service: DIRECTORY, operationId: 'searchFacilityBySiret', method: 'POST', path: '/v1/siret/search', declared: DECLARED, body: 'json',
    async handle(call) {
      const search = searchBody(call, SIRET_SEARCH);
      const f = search.filters ?? {};
      const list = await entities(call, { siret: strictValue(f.siret), siren: strictValue(f.siren), name: textMatch(f.name), locality: textMatch(f.locality) });
      const rows = list.filter((e) => e.facility).map((e) => facilityPayload(e, search.include?.includes('siren') ?? false)).filter((x) =>
        matches(x.siret, f.siret) && matches(x.siren, f.siren) && matches(x.facilityType, f.facilityType) && matches(x.name, f.name)
        && matches([x.address.addressLine1, x.address.addressLine2].filter(Boolean).join(' '), f.addressLines) && matches(x.address.postalCode, f.postalCode)
        && matches(x.address.locality, f.locality) && matches(x.administrativeStatus, f.administrativeStatus) && matches(undefined, f.countrySubdivision));
      return answer(search, rows, search.fields);
    },
  },
  {
    service: DIRECTORY, operationId: 'getFacilityBySiret', method: 'GET', path: '/v1/siret/code-insee:{siret}', declared: DECLARED,
    async handle(call) {
      const siret = pathDigits(call, 'siret', 14);
      const fieldNames = listParam(call.request.query, 'fields', SIRET_FIELDS);
      const inc = listParam(call.request.query, 'include', ['siren']) ?? [];
      const entity = (await entities(call, { siret })).find((e) => e.facility?.siret === siret);
      if (!entity) throw notFound(`SIRET ${siret}`);
      return { status: 200, json: pick(facilityPayload(entity, inc.includes('siren')), fieldNames) };
    },
  },
  {
    service: DIRECTORY, operationId: 'searchRoutingCode', method: 'POST', path: '/v1/routing-code/search', declared: DECLARED, body: 'json',
    async handle(call) {
      const search = searchBody(call, ROUTING_SEARCH);
      const f = search.filters ?? {};
      const inc = search.include ?? [];
      const list = await entities(call, { siret: strictValue(f.siret), locality: textMatch(f.locality) });
      const rows = list.flatMap((e) => e.routingCodes.map((rc) => routingPayload(e, rc, inc))).filter((rc) =>
        matches(rc.routingIdentifier, f.routingIdentifier) && matches(rc.siret, f.siret) && matches(rc.routingCodeName, f.routingCodeName)
        && matches(rc.administrativeStatus, f.administrativeStatus) && matches([rc.address.addressLine1, rc.address.addressLine2].filter(Boolean).join(' '), f.addressLines)
        && matches(rc.address.postalCode, f.postalCode) && matches(rc.address.locality, f.locality));
      return answer(search, rows, search.fields);
    },
  },
  {
    service: DIRECTORY, operationId: 'getRoutingCodeBySiretAndId', method: 'GET', path: '/v1/routing-code/siret:{siret}/code:{routing-identifier}', declared: DECLARED,
    async handle(call) {
      const siret = pathDigits(call, 'siret', 14);
      const id = call.request.path['routing-identifier']!;
      if (id.length > 100) throw new DomainError('INVALID_REQUEST', 'routing-identifier is at most 100 characters', { details: [{ field: 'routing-identifier', rule: 'max', message: 'at most 100 characters' }] });
      const fieldNames = listParam(call.request.query, 'fields', ROUTING_FIELDS);
      const inc = listParam(call.request.query, 'include', ['siren', 'siret']) ?? [];
      for (const e of await entities(call, { siret })) {
        const rc = e.routingCodes.find((r) => r.routingIdentifier === id);
        if (rc) return { status: 200, json: pick(routingPayload(e, rc, inc), fieldNames) };
      }
      throw notFound(`Routing code ${id} of SIRET ${siret}`);
    },
  },
  {
    service: DIRECTORY, operationId: 'searchDirectoryLine', method: 'POST', path: '/v1/directory-line/search', declared: DECLARED, body: 'json',
    async handle(call) {
      const search = searchBody(call, LINE_SEARCH);
      const f = search.filters ?? {};
      const strictId = strictValue(f.addressingIdentifier);
      const list = await entities(call, { siren: strictValue(f.siren) ?? (strictId ? /^\d{9}/.exec(strictId)?.[0] : undefined), siret: strictValue(f.siret) });
      const rows = list.flatMap((e) => linePayloads(e, search.include ?? [])).filter((l) =>
        matches(l.addressingIdentifier, f.addressingIdentifier) && matches(l.siren, f.siren) && matches(l.siret, f.siret)
        && matches(l.routingIdentifier, f.routingIdentifier) && matches(undefined, f.addressingSuffix));
      return answer(search, rows, search.fields);
    },
  },
  {
    service: DIRECTORY, operationId: 'getDirectoryLineById', method: 'GET', path: '/v1/directory-line/code:{addressing-identifier}', declared: DECLARED,
    async handle(call) {
      const id = call.request.path['addressing-identifier']!;
      if (id.length > 125) throw new DomainError('INVALID_REQUEST', 'addressing-identifier is at most 125 characters', { details: [{ field: 'addressing-identifier', rule: 'max', message: 'at most 125 characters' }] });
      const fieldNames = listParam(call.request.query, 'fields', LINE_FIELDS);
      const inc = listParam(call.request.query, 'include', ['siren', 'siret', 'routingCode']) ?? [];
      const siren = /^\d{9}/.exec(id)?.[0];
      if (!siren) throw notFound(`Directory line ${id}`);
      const line = (await entities(call, { siren })).flatMap((e) => linePayloads(e, inc)).find((l) => l.addressingIdentifier === id);
      if (!line) throw notFound(`Directory line ${id}`);
      return { status: 200, json: pick(line, fieldNames) };
    },
  },
  { service: DIRECTORY, operationId: 'getHealth', method: 'GET', path: '/v1/healthcheck', declared: [200, 500, 503], public: true, handle: async () => ({ status: 200 }) },
];
