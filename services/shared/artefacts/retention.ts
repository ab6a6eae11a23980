/**
 * How long an artefact of the legal record is kept: the statutory retention of the country of the
 * company it belongs to (the table and its sources are in services/shared/artefacts/README.md).
 *
 * The period is counted from the end of the calendar year the artefact was stored in: the statutes
 * count from the document's date (France, LPF art. L102 B) or from the last entry of the books
 * (Italy, codice civile art. 2220), so counting from the following 1 January never ends early.
 * Test data (sandbox, test keys) is no legal record: it carries no retention.
 */

/** Years, per ISO 3166-1 alpha-2 country, from the exchange API's reference (limits table). */
export const STATUTORY_RETENTION_YEARS: Readonly<Record<string, number>> = {
  IT: 10,
  FR: 6,
};

/**
 * Any other country: ten years, the longest period among the EU's VAT retention rules, so no
 * country's period ends early before its own is configured (EINV_ARTEFACTS_RETENTION).
 */
export const DEFAULT_RETENTION_YEARS = 10;

export interface RetentionPolicy {
  /** Years per country (the statutory table with the overrides applied). */
  years: Readonly<Record<string, number>>;
  defaultYears: number;
}

/** `EINV_ARTEFACTS_RETENTION=DE=8,NL=7` adds or replaces countries; `EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS` the rest. */
export function retentionPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): RetentionPolicy {
  const years: Record<string, number> = { ...STATUTORY_RETENTION_YEARS };
  for (const part of (env.EINV_ARTEFACTS_RETENTION ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [country, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!country || !/^[A-Z]{2}$/.test(country) || !Number.isInteger(n) || n < 1 || n > 100) {
      throw new Error(`EINV_ARTEFACTS_RETENTION: "${part}" is not <ISO country>=<years> (1 to 100), e.g. DE=8`);
    }
    years[country] = n;
  }
  const rawDefault = env.EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS;
  const defaultYears = rawDefault ? Number(rawDefault) : DEFAULT_RETENTION_YEARS;
  if (!Number.isInteger(defaultYears) || defaultYears < 1 || defaultYears > 100) throw new Error(`EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS must be 1 to 100 years, got "${rawDefault}"`);
  return { years, defaultYears };
}

export function retentionYears(policy: RetentionPolicy, country: string | null | undefined): number {
  return (country ? policy.years[country.toUpperCase()] : undefined) ?? policy.defaultYears;
}

/**
 * When an artefact stored at `storedAt` may be deleted: null for test data; else 1 January (UTC)
 * of the year after storage plus the country's years.
 */
export function retainUntil(policy: RetentionPolicy, input: { livemode: boolean; country: string | null | undefined; storedAt: Date }): Date | null {
  if (!input.livemode) return null;
  return new Date(Date.UTC(input.storedAt.getUTCFullYear() + 1 + retentionYears(policy, input.country), 0, 1));
}
