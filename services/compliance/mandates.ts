/**
 * The e-invoicing mandate of each country, as shipped in `mandates.json` (a versioned data file:
 * `version`, `asOf`). The facts are the compliance reference's (§D, and §A–C for France, Italy,
 * Belgium); the unit test holds the file to that reference. Nothing here knows this deployment:
 * what it supports for a country is derived per request (support.ts).
 */
import { readFileSync } from 'node:fs';

/**
 * How a country controls invoices: `peppol` exchange over the Peppol network (post-audit or the
 * exchange leg of a 5-corner model); `clearance` a platform validates each invoice before it is
 * legal; `reporting` invoice data goes to the tax authority (real time, periodic or 5-corner);
 * `post-audit` structured invoices on any channel, checked in audits; `none` nothing fixed yet.
 */
export const MANDATE_MODELS = ['peppol', 'clearance', 'reporting', 'post-audit', 'none'] as const;
export type MandateModel = (typeof MANDATE_MODELS)[number];

export const TRADE_SCOPES = ['B2B', 'B2G', 'B2C'] as const;
export type TradeScope = (typeof TRADE_SCOPES)[number];

export const REGIONS = ['europe', 'middle-east-africa', 'asia-pacific'] as const;
export const FORMAT_SYNTAXES = ['ubl', 'cii', 'xml', 'json', 'edifact', 'pdf', 'other'] as const;
export const FORMAT_PURPOSES = ['invoice', 'lifecycle', 'report'] as const;
export const PLATFORM_KINDS = ['peppol', 'tax-platform', 'b2g-portal', 'network'] as const;
export const PHASE_KINDS = ['e-invoicing', 'clearance', 'e-reporting', 'other'] as const;

export interface MandateFormat {
  /** Stable id (`peppol-bis-3`, `fatturapa`, `ksef-fa3` …). */
  id: string;
  /** As the sources name it (`Peppol BIS 3.0`, `FA(3)`, `FatturaPA 1.2.3`). */
  name: string;
  syntaxes: Array<(typeof FORMAT_SYNTAXES)[number]>;
  /** An EN 16931 syntax, CIUS or extension: the EN 16931 rules apply to it. */
  en16931: boolean;
  /** The CustomizationID (BT-24) that names it, where one does: what selects its rule packs. */
  customizationId?: string;
  /** A PDF carrying the XML (Factur-X, ZUGFeRD). */
  hybridPdf?: boolean;
  /** `invoice` unless stated: `lifecycle` status messages, `report` data sent to the authority. */
  purpose?: (typeof FORMAT_PURPOSES)[number];
  /** Only for these trades (Facturae: B2G); all of the mandate's otherwise. */
  scope?: TradeScope[];
  description?: string;
}

export interface MandatePlatform {
  id: string;
  name: string;
  kind: (typeof PLATFORM_KINDS)[number];
  scope?: TradeScope[];
  description?: string;
}

export interface MandatePhase {
  /** ISO 8601 at the precision the sources give: `2026-09-01`, `2026-08` or `2028`; null when not fixed. */
  date: string | null;
  kind: (typeof PHASE_KINDS)[number];
  /** false: a voluntary phase (a pilot, a soft launch). */
  mandatory: boolean;
  scope: TradeScope[];
  /** Who it applies to and what they must do. */
  appliesTo: string;
  /** false when no primary source confirmed it (the reference's ⚠). */
  confirmed: boolean;
}

export interface Mandate {
  /** ISO 3166-1 alpha-2. */
  country: string;
  name: string;
  region: (typeof REGIONS)[number];
  models: MandateModel[];
  scope: TradeScope[];
  summary: string;
  formats: MandateFormat[];
  platforms: MandatePlatform[];
  phases: MandatePhase[];
  /** false when the mandate as a whole is not confirmed by a primary source (announced, unverified). */
  confirmed: boolean;
  notes?: string[];
  sources: string[];
}

export interface MandateFile {
  version: string;
  /** The date the facts were compiled. */
  asOf: string;
  countries: Mandate[];
}

export const MANDATES_PATH = new URL('./mandates.json', import.meta.url);

const ISO_DATE = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/;

/** What is wrong with the data file (empty: nothing); the service refuses to start on a broken one. */
export function mandateFileProblems(file: MandateFile): string[] {
  const problems: string[] = [];
  if (!/^\d+\.\d+\.\d+$/.test(file.version ?? '')) problems.push('version must be semver');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(file.asOf ?? '')) problems.push('asOf must be an ISO date');
  const seen = new Set<string>();
  for (const m of file.countries ?? []) {
    const at = `countries[${m.country}]`;
    if (!/^[A-Z]{2}$/.test(m.country)) problems.push(`${at}: country must be ISO 3166-1 alpha-2`);
    if (seen.has(m.country)) problems.push(`${at}: listed twice`);
    seen.add(m.country);
    if (!m.models.length || m.models.some((x) => !(MANDATE_MODELS as readonly string[]).includes(x))) problems.push(`${at}: models must be some of ${MANDATE_MODELS.join(', ')}`);
    if (m.scope.some((s) => !(TRADE_SCOPES as readonly string[]).includes(s))) problems.push(`${at}: unknown scope`);
    for (const f of m.formats) {
      if (!f.syntaxes.length || f.syntaxes.some((s) => !(FORMAT_SYNTAXES as readonly string[]).includes(s))) problems.push(`${at}: format ${f.id} has an unknown syntax`);
    }
    for (const p of m.phases) {
      if (p.date !== null && !ISO_DATE.test(p.date)) problems.push(`${at}: phase date ${p.date} is not YYYY, YYYY-MM or YYYY-MM-DD`);
      if (!(PHASE_KINDS as readonly string[]).includes(p.kind)) problems.push(`${at}: unknown phase kind ${p.kind}`);
    }
  }
  return problems;
}

let cached: MandateFile | undefined;

/** The shipped data file, read and checked once per process. */
export function mandateFile(): MandateFile {
  if (!cached) {
    const file = JSON.parse(readFileSync(MANDATES_PATH, 'utf8')) as MandateFile;
    const problems = mandateFileProblems(file);
    if (problems.length) throw new Error(`services/compliance/mandates.json: ${problems.join('; ')}`);
    cached = file;
  }
  return cached;
}

/** The countries the data file covers, sorted: the allowed values of `?country=`. */
export function mandateCountries(): string[] {
  return mandateFile().countries.map((m) => m.country).sort();
}

/**
 * Where a country stands on `today` (YYYY-MM-DD), from its mandatory dated phases: `in_force`
 * (started, nothing later), `phasing_in` (started, later phases to come), `scheduled` (all to
 * come), `undated` (a mandate exists or is announced, no date fixed), `voluntary` (nothing
 * mandatory). A phase of month or year precision starts on its first day.
 */
export type MandateStatus = 'in_force' | 'phasing_in' | 'scheduled' | 'undated' | 'voluntary';

export function phaseStart(date: string): string {
  return date.length === 4 ? `${date}-01-01` : date.length === 7 ? `${date}-01` : date;
}

export function mandateStatus(m: Pick<Mandate, 'phases'>, today: string): { status: MandateStatus; nextPhase: MandatePhase | null } {
  const mandatory = m.phases.filter((p) => p.mandatory);
  const dated = mandatory.filter((p): p is MandatePhase & { date: string } => p.date !== null)
    .sort((a, b) => phaseStart(a.date).localeCompare(phaseStart(b.date)));
  const started = dated.filter((p) => phaseStart(p.date) <= today);
  const upcoming = dated.filter((p) => phaseStart(p.date) > today);
  const nextPhase = upcoming[0] ?? null;
  if (started.length) return { status: upcoming.length ? 'phasing_in' : 'in_force', nextPhase };
  if (upcoming.length) return { status: 'scheduled', nextPhase };
  return { status: mandatory.length ? 'undated' : 'voluntary', nextPhase: null };
}
