/**
 * What a deployment supports for a mandate (services/compliance/support.ts), from connector
 * manifests shaped like the shipped ones, and where a mandate stands on a day (mandates.ts).
 */
import type { ConnectorManifest } from '../../../../adapters/sdk/index.ts';
import { countrySupport } from '../../../../services/compliance/support.ts';
import { mandateFile, mandateStatus, type Mandate, type MandatePhase } from '../../../../services/compliance/mandates.ts';

const caps = { send: false, pushReceive: false, pollReceive: false, status: false, report: false, discover: false };
function manifest(id: string, over: Omit<Partial<ConnectorManifest>, 'capabilities'> & { capabilities?: Partial<ConnectorManifest['capabilities']> }): ConnectorManifest {
  return { id, version: '1.0.0', apiVersion: '2.4', name: id, description: id, modes: ['live', 'test'], countries: ['*'], documentTypes: ['invoice'], ...over, capabilities: { ...caps, ...over.capabilities } };
}
const as4 = manifest('peppol-as4', { network: 'peppol', capabilities: { send: true, pushReceive: true, discover: true } });
const sandbox = manifest('sandbox-network', { modes: ['test'], capabilities: { send: true, status: true, discover: true, registry: true } });
const vies = manifest('vies', { countries: ['BE', 'FR', 'PL'], capabilities: { registry: true } });
const ppf = manifest('fr-ppf', { countries: ['FR'], capabilities: { report: true } });
const ksef = manifest('pl-ksef', { countries: ['PL'], modes: ['live'], capabilities: { send: true, status: true } });

const mandate = (country: string): Mandate => {
  const m = mandateFile().countries.find((c) => c.country === country);
  if (!m) throw new Error(`no ${country} in the map`);
  return m;
};
const noPacks = new Map<string, never[]>();

describe('countrySupport', () => {
  it('Belgium (Peppol) with the AS4 access point: full, the connector listed with its roles', () => {
    const s = countrySupport(mandate('BE'), [as4, vies, ppf], 'live', new Map([['peppol-bis-3', [{ id: 'en16931', version: '1.3.16', title: 'x' }, { id: 'peppol-bis', version: '3.0.21', title: 'y' }]]]));
    expect(s).toEqual({
      coverage: 'full',
      models: [{ model: 'peppol', supported: true, simulated: false, connectors: ['peppol-as4'] }],
      connectors: [
        { id: 'peppol-as4', name: 'peppol-as4', national: false, network: 'peppol', roles: ['send', 'receive', 'discover'] },
        { id: 'vies', name: 'vies', national: true, network: null, roles: ['registry'] },
      ],
      formats: [{ id: 'peppol-bis-3', rulePacks: ['en16931@1.3.16', 'peppol-bis@3.0.21'] }],
      gaps: [],
    });
  });

  it('a Peppol access point alone does not clear Polish invoices: none, with the gap in words', () => {
    const s = countrySupport(mandate('PL'), [as4], 'live', noPacks);
    expect(s.coverage).toBe('none');
    expect(s.models).toEqual([{ model: 'clearance', supported: false, simulated: false, connectors: [] }]);
    expect(s.gaps).toEqual(['No connector clears Poland invoices through KSeF 2.0 for live documents']);
    expect(s.formats).toEqual([{ id: 'ksef-fa3', rulePacks: [] }]);
  });

  it('a national connector clears; in its own mode only', () => {
    expect(countrySupport(mandate('PL'), [as4, ksef], 'live', noPacks)).toMatchObject({ coverage: 'full', models: [{ model: 'clearance', supported: true, connectors: ['pl-ksef'] }] });
    expect(countrySupport(mandate('PL'), [as4, ksef], 'test', noPacks).coverage).toBe('none');
  });

  it('France needs both legs: Peppol exchange and a national reporting connector', () => {
    expect(countrySupport(mandate('FR'), [as4], 'live', noPacks)).toMatchObject({ coverage: 'partial', gaps: [expect.stringMatching(/reports France invoice data to PPF/)] });
    expect(countrySupport(mandate('FR'), [as4, ppf], 'live', noPacks)).toMatchObject({ coverage: 'full', gaps: [] });
    // A connector that reaches every country does not report to a national platform.
    expect(countrySupport(mandate('FR'), [as4, manifest('file-drop', { capabilities: { send: true, report: true } })], 'live', noPacks).coverage).toBe('partial');
  });

  it('in test mode the sandbox network stands in for Peppol (simulated), never for a clearance platform', () => {
    expect(countrySupport(mandate('BE'), [sandbox], 'test', noPacks).models).toEqual([{ model: 'peppol', supported: true, simulated: true, connectors: ['sandbox-network'] }]);
    expect(countrySupport(mandate('BE'), [sandbox], 'live', noPacks)).toMatchObject({ coverage: 'none', connectors: [], gaps: [expect.stringMatching(/Peppol access point/)] });
    expect(countrySupport(mandate('IT'), [sandbox], 'test', noPacks).coverage).toBe('none');
  });

  it('Germany (post-audit or Peppol): any sending connector meets post-audit', () => {
    const s = countrySupport(mandate('DE'), [manifest('file-drop', { capabilities: { send: true } })], 'live', noPacks);
    expect(s.coverage).toBe('partial');
    expect(s.models.find((m) => m.model === 'post-audit')).toEqual({ model: 'post-audit', supported: true, simulated: false, connectors: ['file-drop'] });
  });

  it('nothing to meet where no mandate is fixed', () => {
    expect(countrySupport(mandate('BH'), [], 'live', noPacks)).toMatchObject({ coverage: 'not_required', gaps: [] });
  });
});

describe('mandateStatus', () => {
  const phase = (date: string | null, mandatory = true): MandatePhase => ({ date, kind: 'e-invoicing', mandatory, scope: ['B2B'], appliesTo: 'x', confirmed: true });

  it('reckons phases of day, month and year precision from their first day', () => {
    const m = { phases: [phase('2026-01-01'), phase('2027-09'), phase('2028')] };
    expect(mandateStatus(m, '2025-12-31')).toEqual({ status: 'scheduled', nextPhase: m.phases[0] });
    expect(mandateStatus(m, '2026-01-01')).toEqual({ status: 'phasing_in', nextPhase: m.phases[1] });
    expect(mandateStatus(m, '2027-09-01')).toEqual({ status: 'phasing_in', nextPhase: m.phases[2] });
    expect(mandateStatus(m, '2028-01-01')).toEqual({ status: 'in_force', nextPhase: null });
  });

  it('voluntary phases do not count; undated mandatory ones make it undated', () => {
    expect(mandateStatus({ phases: [phase('2020', false), phase(null, false)] }, '2026-01-01')).toEqual({ status: 'voluntary', nextPhase: null });
    expect(mandateStatus({ phases: [phase(null)] }, '2026-01-01')).toEqual({ status: 'undated', nextPhase: null });
    expect(mandateStatus({ phases: [phase('2026-07-01', false), phase('2027-01-01')] }, '2026-08-01')).toEqual({ status: 'scheduled', nextPhase: expect.objectContaining({ date: '2027-01-01' }) });
  });

  it('Belgium on the day of the spec: B2B in force since 1 Jan 2026, e-reporting next in 2028', () => {
    expect(mandateStatus(mandateFile().countries.find((c) => c.country === 'BE')!, '2026-11-26')).toMatchObject({ status: 'phasing_in', nextPhase: { date: '2028-01-01', kind: 'e-reporting' } });
  });
});
