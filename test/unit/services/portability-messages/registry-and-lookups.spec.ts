import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPlatform, loadRegistry, platformView, portabilityAddressOf, readRegistry, searchRegistry } from '../../../../services/portability-messages/platform-registry.ts';
import { nameScore, readQuery, registerIdentifier } from '../../../../services/portability-messages/company-suggestions.ts';
import { subjectAttributes } from '../../../../services/portability-messages/access-point.ts';
import { counterpartRole, csvFilename } from '../../../../services/portability-messages/message-text.ts';

const dir = mkdtempSync(join(tmpdir(), 'einv-registry-'));
const file = (name: string, content: unknown) => { const f = join(dir, name); writeFileSync(f, JSON.stringify(content)); return f; };
const base = { source: 's', snapshotDate: '2026-11-01' };

describe('platform registry snapshot', () => {
  it('the shipped snapshot loads, says where it comes from, and invents no address or matricule', () => {
    const shipped = loadRegistry(undefined);
    expect(shipped.source).toMatch(/DGFiP/);
    expect(shipped.snapshotDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(shipped.platforms.length).toBeGreaterThan(0);
    for (const p of shipped.platforms) {
      // Every matricule of the shipped list carries how it is known.
      if (p.matricule !== null) expect(p.matriculeConfidence).not.toBeNull();
    }
  });

  it.each([
    ['no source', { snapshotDate: '2026-11-01', platforms: [] }, /source/],
    ['a bad snapshotDate', { source: 's', snapshotDate: '1/11/2026', platforms: [] }, /snapshotDate/],
    ['a platform without a name', { ...base, platforms: [{ status: 'registered' }] }, /no name/],
    ['an unknown status', { ...base, platforms: [{ name: 'A', status: 'approved' }] }, /status/],
    ['a matricule without its confidence', { ...base, platforms: [{ name: 'A', status: 'registered', matricule: '0042' }] }, /matriculeConfidence/],
    ['a matricule not of four digits', { ...base, platforms: [{ name: 'A', status: 'registered', matricule: '42', matriculeConfidence: 'inferred' }] }, /four digits/],
    ['an e-mail that is none', { ...base, platforms: [{ name: 'A', status: 'registered', portabilityEmail: 'not an address' }] }, /portabilityEmail/],
  ])('refuses a snapshot with %s', (_name, content, message) => {
    expect(() => readRegistry(file(`${_name}.json`, content))).toThrow(message);
  });

  const registry = readRegistry(file('ok.json', { ...base, platforms: [
    { name: 'Plateforme Alpha', status: 'registered', email: 'a@alpha.example', portabilityEmail: 'p@alpha.example', matricule: '0042', matriculeConfidence: 'inferred' },
    { name: 'Bêta', status: 'pending_interop', contactEmail: 'c@beta.example', email: 'b@beta.example' },
    { name: 'Gamma', status: 'registered', email: 'g@gamma.example' },
  ] }));

  it('finds a platform by matricule or by name (case, accents and punctuation aside), and its portability address first', () => {
    expect(findPlatform(registry, '0042', null)?.name).toBe('Plateforme Alpha');
    expect(findPlatform(registry, null, 'BETA')?.name).toBe('Bêta');
    expect(findPlatform(registry, 'plateforme-alpha', null)?.name).toBe('Plateforme Alpha');
    expect(findPlatform(registry, '9999', 'nobody')).toBeUndefined();
    expect(registry.platforms.map(portabilityAddressOf)).toEqual(['p@alpha.example', 'c@beta.example', 'g@gamma.example']);
  });

  it('shows a matricule (with its confidence) only to a signed-in reader', () => {
    expect(platformView(registry.platforms[0]!, true)).toMatchObject({ matricule: '0042', matriculeConfidence: 'inferred' });
    expect(platformView(registry.platforms[0]!, false)).not.toHaveProperty('matricule');
    expect(platformView(registry.platforms[1]!, true)).not.toHaveProperty('matricule');
    expect(searchRegistry(registry, 'beta', undefined).map((p) => p.name)).toEqual(['Bêta']);
    expect(searchRegistry(registry, undefined, 'registered').map((p) => p.name)).toEqual(['Plateforme Alpha', 'Gamma']);
  });
});

describe('company query reading', () => {
  it.each([
    ['FR', '120027016', '0009:120027016'],
    ['FR', '12002701600357', '0009:120027016'],
    ['BE', '0403170701', '0208:0403170701'],
    ['DK', '12345678', '0184:12345678'],
    ['SE', '5560360793', '0007:5560360793'],
    ['NO', '923609016', '0192:923609016'],
    ['NL', '12345678', '0106:12345678'],
  ])('a bare %s number %s is %s', (country, digits, peppolId) => {
    expect(registerIdentifier(country, digits)).toEqual({ peppolId });
  });

  it('invents no scheme where the country has none for a bare number', () => {
    for (const country of ['DE', 'AT', 'IT', 'ES', 'PL']) expect(registerIdentifier(country, '123456789')).toEqual({ note: expect.stringContaining('No Peppol register scheme') });
    expect(registerIdentifier('FR', '1234')).toEqual({ note: expect.stringContaining('SIREN') });
    expect(readQuery('123456789', undefined)).toMatchObject({ kind: 'registrationNumber', peppolId: null, note: expect.stringContaining('country') });
  });

  it('reads Peppol ids, VAT numbers and names', () => {
    expect(readQuery('iso6523-actorid-upis::0208:0403170701', undefined)).toMatchObject({ kind: 'peppolId', peppolId: '0208:0403170701' });
    expect(readQuery('BE 0403.170.701', undefined)).toMatchObject({ kind: 'vatNumber', peppolId: '0208:0403170701' });
    expect(readQuery('Acme 2000', 'FR')).toMatchObject({ kind: 'name', peppolId: null });
    expect([nameScore('acme', 'ACME'), nameScore('acme', 'Acme Industries'), nameScore('ind', 'Acme Industries'), nameScore('dust', 'Acme Industries'), nameScore('x', 'Acme')]).toEqual([1, 0.8, 0.6, 0.4, 0.2]);
  });
});

describe('message addressing and names', () => {
  it('sends to the other side of the switch', () => {
    expect(counterpartRole('GAINING_PA', 'ACK')).toBe('LOSING_PA');
    expect(counterpartRole('LOSING_PA', 'REQUEST')).toBe('GAINING_PA');
    expect(['REQUEST', 'ACK', 'DECISION', 'COMPLETION'].map((t) => counterpartRole(undefined, t as never))).toEqual(['LOSING_PA', 'GAINING_PA', 'GAINING_PA', 'LOSING_PA']);
  });

  it('names the CSV file from the message, the reference made file-safe', () => {
    expect(csvFilename({ messageType: 'ACK', statusCode: 'ACK', siren: '120027016', requestRef: '../a b/c' }, new Date('2026-11-27T08:30:05.123Z'))).toBe('PORTABILITE_ACK_ACK_120027016_a-b-c_20261127T083005Z.csv');
  });

  it('reads an endpoint certificate subject, a value holding ", " included', () => {
    expect(subjectAttributes('C=NO, O=Test AP POP000002 AS, OU=PEPPOL TEST AP, CN=POP000002')).toEqual({ C: 'NO', O: 'Test AP POP000002 AS', OU: 'PEPPOL TEST AP', CN: 'POP000002' });
    expect(subjectAttributes('C=FR, O=Acme, Inc., CN=PFR000123')).toEqual({ C: 'FR', O: 'Acme, Inc.', CN: 'PFR000123' });
  });
});
