/** The statutory retention table (services/shared/artefacts/retention.ts): periods, overrides, and when they end. */
import { DEFAULT_RETENTION_YEARS, retainUntil, retentionPolicyFromEnv, retentionYears } from '../../../../../services/shared/artefacts/retention.ts';

describe('artefact retention', () => {
  const policy = retentionPolicyFromEnv({});

  it('keeps 10 years in Italy, 6 in France, and the longest period elsewhere until configured', () => {
    expect(retentionYears(policy, 'IT')).toBe(10);
    expect(retentionYears(policy, 'FR')).toBe(6);
    expect(retentionYears(policy, 'fr')).toBe(6);
    expect(retentionYears(policy, 'BE')).toBe(DEFAULT_RETENTION_YEARS);
    expect(retentionYears(policy, null)).toBe(DEFAULT_RETENTION_YEARS);
  });

  it('counts from the end of the calendar year of storage, so it never ends before the statute', () => {
    expect(retainUntil(policy, { livemode: true, country: 'FR', storedAt: new Date('2026-03-15T10:00:00Z') })).toEqual(new Date('2033-01-01T00:00:00Z'));
    expect(retainUntil(policy, { livemode: true, country: 'IT', storedAt: new Date('2026-12-31T23:59:59Z') })).toEqual(new Date('2037-01-01T00:00:00Z'));
  });

  it('keeps test data for no time: it is no legal record', () => {
    expect(retainUntil(policy, { livemode: false, country: 'IT', storedAt: new Date('2026-03-15T10:00:00Z') })).toBeNull();
  });

  it('takes overrides per country and a default, and refuses malformed ones at start', () => {
    const custom = retentionPolicyFromEnv({ EINV_ARTEFACTS_RETENTION: 'DE=8, NL=7,FR=10', EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS: '12' });
    expect([retentionYears(custom, 'DE'), retentionYears(custom, 'NL'), retentionYears(custom, 'FR'), retentionYears(custom, 'IT'), retentionYears(custom, 'ES')]).toEqual([8, 7, 10, 10, 12]);
    expect(() => retentionPolicyFromEnv({ EINV_ARTEFACTS_RETENTION: 'germany=8' })).toThrow(/EINV_ARTEFACTS_RETENTION: "germany=8" is not <ISO country>=<years>/);
    expect(() => retentionPolicyFromEnv({ EINV_ARTEFACTS_RETENTION: 'DE=0' })).toThrow(/is not <ISO country>=<years>/);
    expect(() => retentionPolicyFromEnv({ EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS: 'ten' })).toThrow(/EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS must be 1 to 100 years/);
  });
});
