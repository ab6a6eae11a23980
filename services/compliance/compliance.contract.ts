/**
 * compliance: the e-invoicing mandate of each country (a versioned data file shipped with the
 * product) and what this deployment supports for it (its enabled connectors and rule packs, read
 * at request time).
 */
import { defineAction, STRICT_REMOVE, type JsonSchema } from '../shared/contract.ts';
import { FORMAT_PURPOSES, FORMAT_SYNTAXES, MANDATE_MODELS, PHASE_KINDS, PLATFORM_KINDS, REGIONS, TRADE_SCOPES, mandateCountries, type Mandate, type MandatePhase, type MandateStatus } from './mandates.ts';
import type { CountrySupport } from './support.ts';

export type { Mandate, MandatePhase, MandateStatus } from './mandates.ts';
export type { CountrySupport } from './support.ts';

export interface CountryStatus extends Mandate {
  status: MandateStatus;
  nextPhase: MandatePhase | null;
  support: CountrySupport;
}

export interface ComplianceStatus {
  /** Version of the mandate data (semver) and the date its facts were compiled. */
  dataVersion: string;
  asOf: string;
  /** The day `status` and `nextPhase` are reckoned on. */
  evaluatedOn: string;
  /** The caller's mode: `support` speaks of the connectors that serve it. */
  mode: 'live' | 'test';
  countries: CountryStatus[];
}

const scopes: JsonSchema = { type: 'array', items: { type: 'string', enum: [...TRADE_SCOPES] } };

const phaseSchema: JsonSchema = {
  type: 'object', required: ['date', 'kind', 'mandatory', 'scope', 'appliesTo', 'confirmed'],
  properties: {
    date: { type: ['string', 'null'], pattern: '^\\d{4}(-\\d{2}(-\\d{2})?)?$', description: 'ISO 8601 at the precision the sources give (2026-09-01, 2026-08 or 2028; a month or year starts on its first day); null when not fixed', examples: ['2026-09-01'] },
    kind: { type: 'string', enum: [...PHASE_KINDS], description: '`e-invoicing`: issue and/or receive structured invoices; `clearance`: invoices cleared by a platform; `e-reporting`: invoice or transaction data reported; `other`: a related obligation (access-point rules, delivery notes, invoice numbering)' },
    mandatory: { type: 'boolean', description: 'false for a voluntary phase (pilot, soft launch)' },
    scope: scopes,
    appliesTo: { type: 'string', description: 'Who it applies to and what they must do' },
    confirmed: { type: 'boolean', description: 'false when no primary source confirmed it' },
  },
};

const countrySchema: JsonSchema = {
  type: 'object',
  required: ['country', 'name', 'region', 'models', 'scope', 'summary', 'formats', 'platforms', 'phases', 'status', 'nextPhase', 'confirmed', 'sources', 'support'],
  properties: {
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2', examples: ['BE'] },
    name: { type: 'string', examples: ['Belgium'] },
    region: { type: 'string', enum: [...REGIONS] },
    models: {
      type: 'array', items: { type: 'string', enum: [...MANDATE_MODELS] },
      description: '`peppol`: exchange over the Peppol network (post-audit, or the exchange leg of a 5-corner model); `clearance`: a platform validates each invoice before it is legal; `reporting`: invoice data goes to the tax authority (real time, periodic or through the access points); `post-audit`: structured invoices on any channel, checked in audits; `none`: nothing fixed yet',
    },
    scope: { ...scopes, description: 'Trades the mandate covers, now or as scheduled' },
    summary: { type: 'string' },
    formats: {
      type: 'array',
      items: {
        type: 'object', required: ['id', 'name', 'syntaxes', 'en16931'],
        properties: {
          id: { type: 'string', examples: ['peppol-bis-3'] },
          name: { type: 'string', examples: ['Peppol BIS 3.0'] },
          syntaxes: { type: 'array', items: { type: 'string', enum: [...FORMAT_SYNTAXES] } },
          en16931: { type: 'boolean', description: 'An EN 16931 syntax, CIUS or extension' },
          customizationId: { type: 'string', description: 'The CustomizationID (BT-24) naming it, where one does' },
          hybridPdf: { type: 'boolean', description: 'A PDF carrying the XML (Factur-X, ZUGFeRD)' },
          purpose: { type: 'string', enum: [...FORMAT_PURPOSES], description: 'Absent: invoice. `lifecycle`: status messages; `report`: data sent to the authority' },
          scope: { ...scopes, description: 'Only for these trades; absent: all of the mandate\'s' },
          description: { type: 'string' },
        },
      },
    },
    platforms: {
      type: 'array', description: 'The networks and platforms the mandate runs on (PPF, SdI, KSeF, ZATCA Fatoora, RO e-Factura, Peppol …)',
      items: {
        type: 'object', required: ['id', 'name', 'kind'],
        properties: {
          id: { type: 'string', examples: ['ksef'] }, name: { type: 'string', examples: ['KSeF 2.0'] },
          kind: { type: 'string', enum: [...PLATFORM_KINDS] }, scope: scopes, description: { type: 'string' },
        },
      },
    },
    phases: { type: 'array', items: phaseSchema, description: 'The steps of the mandate, in order' },
    status: {
      type: 'string', enum: ['in_force', 'phasing_in', 'scheduled', 'undated', 'voluntary'],
      description: 'On `evaluatedOn`, from the mandatory dated phases: `in_force` (started, nothing later), `phasing_in` (started, later phases to come), `scheduled` (all to come), `undated` (no date fixed), `voluntary` (nothing mandatory)',
    },
    nextPhase: { oneOf: [phaseSchema, { type: 'null' }], description: 'The next mandatory dated phase after `evaluatedOn`' },
    confirmed: { type: 'boolean', description: 'false when the mandate is announced or not confirmed by a primary source' },
    notes: { type: 'array', items: { type: 'string' } },
    sources: { type: 'array', items: { type: 'string' }, description: 'Where the facts come from' },
    support: {
      type: 'object', required: ['coverage', 'models', 'connectors', 'formats', 'gaps'],
      description: 'What this deployment does for the mandate in the caller\'s mode, from its enabled connectors and rule packs now',
      properties: {
        coverage: { type: 'string', enum: ['full', 'partial', 'none', 'not_required'], description: 'How many of `models` this deployment meets: all, some, none, or there is nothing to meet' },
        models: {
          type: 'array',
          items: {
            type: 'object', required: ['model', 'supported', 'simulated', 'connectors'],
            properties: {
              model: { type: 'string', enum: [...MANDATE_MODELS] },
              supported: { type: 'boolean' },
              simulated: { type: 'boolean', description: 'Met in test mode by the sandbox network standing in for the real one' },
              connectors: { type: 'array', items: { type: 'string' }, description: 'The connectors that meet it' },
            },
          },
        },
        connectors: {
          type: 'array', description: 'The connectors of the caller\'s mode that serve the country',
          items: {
            type: 'object', required: ['id', 'name', 'national', 'network', 'roles'],
            properties: {
              id: { type: 'string', examples: ['peppol-as4'] }, name: { type: 'string' },
              national: { type: 'boolean', description: 'It names this country (not every country, `*`)' },
              network: { type: ['string', 'null'], description: 'The network whose rules it applies (`peppol`)' },
              roles: { type: 'array', items: { type: 'string', enum: ['send', 'receive', 'status', 'report', 'discover', 'registry'] } },
            },
          },
        },
        formats: {
          type: 'array', description: 'For each format: the rule packs a document of it runs here (empty: not validated here)',
          items: { type: 'object', required: ['id', 'rulePacks'], properties: { id: { type: 'string' }, rulePacks: { type: 'array', items: { type: 'string', examples: ['peppol-bis@3.0.21'] } } } },
        },
        gaps: { type: 'array', items: { type: 'string' }, description: 'What is missing for full coverage, in words' },
      },
    },
  },
};

export const status = defineAction<{ country?: string }, ComplianceStatus>('compliance', 'status', {
  params: {
    ...STRICT_REMOVE,
    country: {
      type: 'string', optional: true, pattern: /^[A-Z]{2}$/,
      openapi: { type: 'string', enum: mandateCountries(), description: 'One country (ISO 3166-1 alpha-2, upper case). Not two upper-case letters: 400 INVALID_REQUEST; a code the map does not cover: 400 INVALID_ENUM' },
    },
  },
  http: {
    method: 'GET', path: '/v1/compliance/status', access: 'compliance', tag: 'Compliance',
    summary: 'The e-invoicing mandate of each country (or of one, `?country=`) and what this deployment supports for it',
    description: 'Each country\'s mandate from the versioned mandate map shipped with the product (`dataVersion`, `asOf`): models, trades, formats, platforms and dated phases, '
      + 'with its `status` on today\'s date and the next phase; and `support`: what this deployment does for it in the caller\'s mode, derived now from the enabled connectors '
      + '(which one sends, clears or reports for the country) and the rule packs that validate its formats, with the gaps in words. The whole map comes in one answer (no pagination).',
    errors: { 400: 'INVALID_REQUEST: `country` is not two upper-case letters; INVALID_ENUM: a country the map does not cover (`details[0].rule` enumValue)' },
    response: {
      type: 'object', required: ['dataVersion', 'asOf', 'evaluatedOn', 'mode', 'countries'],
      properties: {
        dataVersion: { type: 'string', description: 'Version of the mandate map (semver)', examples: ['1.0.0'] },
        asOf: { type: 'string', format: 'date', description: 'The date the mandate facts were compiled' },
        evaluatedOn: { type: 'string', format: 'date', description: 'The day `status` and `nextPhase` are reckoned on' },
        mode: { type: 'string', enum: ['live', 'test'], description: 'The caller\'s mode, which `support` speaks of' },
        countries: { type: 'array', items: countrySchema },
      },
    },
  },
});
