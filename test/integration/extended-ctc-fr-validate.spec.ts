/**
 * POST /v1/documents/validate on French invoices of the EXTENDED-CTC-FR profile (AFNOR XP Z12-012): the
 * profile identifier selects our extended-ctc-fr pack in place of the EN 16931 core, in UBL and in CII; a broken
 * extended rule comes back as a plain finding; the same invoice labelled plain EN 16931 gets the core pack.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { CII_EXTENDED, UBL_EXTENDED, EXTENDED_MUTATIONS, mutated } from '../support/extended-ctc-fr-invoices.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ services: ['gateway', 'tenancy', 'sandbox', 'validation'] });
  key = (await bootstrap(t.baseUrl)).apiKey;
});
afterAll(async () => { await t.stop(); });

const validateXml = (format: 'ubl-xml' | 'cii-xml', xml: string) => api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format, xml } });
const packIds = (packs: string[]): string[] => packs.map((p) => p.replace(/@.*/, ''));

it.each([['ubl-xml', UBL_EXTENDED], ['cii-xml', CII_EXTENDED]] as const)('%s: an extended-profile French invoice is valid under extended-ctc-fr, and en16931 does not run', async (format, xml) => {
  const res = await validateXml(format, xml);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ valid: true, profile: 'extended-ctc-fr', findings: [] });
  expect(res.body.packs).toContain('extended-ctc-fr@1.4.0');
  expect(packIds(res.body.packs)).not.toContain('en16931');
});

it('a GROUP line whose amount is not the sum of its sub-lines is reported as BR-FREXT-08, in plain language with a hint', async () => {
  const m = EXTENDED_MUTATIONS.find((x) => x.syntax === 'ubl' && x.name.startsWith('GROUP line 2 says 60.00'))!;
  const res = await validateXml('ubl-xml', mutated(m));
  expect(res.status).toBe(200);
  expect(res.body.valid).toBe(false);
  expect(res.body.findings.map((f: { rule: string }) => f.rule)).toEqual(['BR-FREXT-08']);
  expect(res.body.findings[0]).toMatchObject({ severity: 'fatal', source: 'extended-ctc-fr@1.4.0', location: expect.stringMatching(/InvoiceLine\[2\]/) });
  expect(res.body.findings[0].message).toMatch(/60\.00.*50/);
  expect(res.body.findings[0].hint.length).toBeGreaterThan(10);
});

it('the same invoice labelled plain EN 16931 is checked by the EN 16931 core, which counts the GROUP line (BR-CO-10)', async () => {
  const res = await validateXml('ubl-xml', UBL_EXTENDED.replace(/<cbc:CustomizationID>[^<]*</, '<cbc:CustomizationID>urn:cen.eu:en16931:2017<'));
  expect(res.status).toBe(200);
  expect(res.body.profile).toBe('en16931');
  expect(packIds(res.body.packs)).toContain('en16931');
  expect(packIds(res.body.packs)).not.toContain('extended-ctc-fr');
  expect(res.body.findings.map((f: { rule: string }) => f.rule)).toContain('BR-CO-10');
});
