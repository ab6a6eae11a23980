/**
 * compliance: `GET /v1/compliance/status`. The mandates come from the shipped data file
 * (mandates.json); what this deployment supports is derived on each call from the connectors the
 * broker knows (their manifests, as routing reads them) and the rule packs the validation service
 * selects for each format. No database.
 */
import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { DomainError } from '../shared/errors.ts';
import { registeredManifests } from '../connectors/adapters.contract.ts';
import { rulePacks, type RulePackQuery } from '../validation/validation.contract.ts';
import { status, type CountryStatus } from './compliance.contract.ts';
import { mandateFile, mandateStatus, type Mandate } from './mandates.ts';
import { countrySupport, type RulePackRef } from './support.ts';

/** The CustomizationID of plain EN 16931 (what a format without its own selects packs with). */
const EN16931 = 'urn:cen.eu:en16931:2017';

/** One rule-pack query per EN 16931 format and syntax of each mandate, keyed `<country>/<format>`. */
function packQueries(mandates: readonly Mandate[]): Array<{ key: string; query: RulePackQuery }> {
  return mandates.flatMap((m) => m.formats.filter((f) => f.en16931).flatMap((f) => f.syntaxes
    .filter((s): s is 'ubl' | 'cii' => s === 'ubl' || s === 'cii')
    .map((syntax) => ({ key: `${m.country}/${f.id}`, query: { syntax, customizationId: f.customizationId ?? EN16931, country: m.country } }))));
}

const ComplianceService: ServiceSchema = {
  name: 'compliance',

  created() {
    // A broken data file stops the service at start, not the first caller.
    mandateFile();
  },

  actions: {
    status: implement(status, async (ctx) => {
      const file = mandateFile();
      const wanted = ctx.params.country;
      const mandates = wanted ? file.countries.filter((m) => m.country === wanted) : file.countries;
      if (wanted && !mandates.length) {
        const message = `The mandate map (version ${file.version}) does not cover country '${wanted}'; covered: ${file.countries.map((m) => m.country).join(', ')}`;
        throw new DomainError('INVALID_ENUM', message, { details: [{ field: 'country', rule: 'enumValue', message }] });
      }
      const { livemode } = principalOf(ctx);
      const mode = livemode ? 'live' : 'test';
      const manifests = registeredManifests(ctx.broker);
      const queries = packQueries(mandates);
      const answers = queries.length ? await call(ctx, rulePacks, { queries: queries.map((q) => q.query) }) : [];
      const packs = new Map<string, RulePackRef[]>();
      queries.forEach(({ key }, i) => {
        const list = packs.get(key) ?? [];
        for (const p of answers[i] ?? []) if (!list.some((x) => x.id === p.id && x.version === p.version)) list.push(p);
        packs.set(key, list);
      });
      const today = systemClock.now().toISOString().slice(0, 10);
      const countries: CountryStatus[] = mandates.map((m) => {
        const byFormat = new Map(m.formats.map((f) => [f.id, packs.get(`${m.country}/${f.id}`) ?? []]));
        return { ...m, ...mandateStatus(m, today), support: countrySupport(m, manifests, mode, byFormat) };
      });
      return { dataVersion: file.version, asOf: file.asOf, evaluatedOn: today, mode, countries };
    }),
  },
};

export default ComplianceService;
