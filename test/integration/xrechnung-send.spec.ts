/**
 * Sending an XRechnung over HTTP: the XRechnung specification identifier (BT-24) selects the BR-DE pack,
 * so a UBL XRechnung that breaks a German rule is refused with the validation error envelope naming the
 * BR-DE rule, and a valid one is accepted and delivered. The document is KoSIT's report-test instance
 * ubl001 (accepted by KoSIT's validator, see shared/corpus/validator-configuration-xrechnung/NOTICE.md),
 * re-issued by the sending sandbox company.
 */
import { readFileSync } from 'node:fs';
import { reissued } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { corpusPath } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

const XR_CIUS = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const UBL001 = readFileSync(corpusPath('validator-configuration-xrechnung/src/test/instances/ubl001.xml'), 'utf8')
  .replaceAll('@xrechnung.spec.id@', XR_CIUS);

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'xr-seller' }), await bootstrap(t.baseUrl, { label: 'xr-buyer' })];
});
afterAll(async () => { await t.stop(); });

let counter = 0;
/** ubl001 as company a sends it, under a number of its own. */
function xrechnung(): { xml: string; number: string } {
  const number = `XR-${Date.now()}-${++counter}`;
  const xml = reissued(UBL001.replace(/(<\/cbc:CustomizationID>[\s\S]*?<cbc:ID>)[^<]+(<\/cbc:ID>)/, `$1${number}$2`), a.company);
  return { xml, number };
}

const send = (xml: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.peppolId, xml } });

it('an XRechnung without buyer reference (BT-10) is refused with BR-DE-15, and nothing is stored', async () => {
  const { xml, number } = xrechnung();
  const broken = xml.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, '');
  expect(broken).not.toBe(xml);
  const res = await send(broken);
  expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
  expect(res.body.error.details.map((d: { rule: string }) => d.rule)).toEqual(['BR-DE-15']);
  expect(res.body.error.details[0].message).toMatch(/buyer reference \(BT-10/);
  expect(res.body.error.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'BR-DE-15', severity: 'fatal' })]));
  const list = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: a.apiKey, body: { filters: { number } } });
  expect(list.body.data).toEqual([]);
});

it('an XRechnung whose seller contact has no telephone is refused with BR-DE-6', async () => {
  const { xml } = xrechnung();
  const broken = xml.replace(/<cbc:Telephone>[^<]*<\/cbc:Telephone>/, '');
  expect(broken).not.toBe(xml);
  const res = await send(broken);
  expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
  expect(res.body.error.details.map((d: { rule: string }) => d.rule)).toContain('BR-DE-6');
});

it('a valid XRechnung is accepted, validated with the XRechnung pack, and delivered', async () => {
  const { xml, number } = xrechnung();
  const check = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml } });
  expect(check.body).toMatchObject({ valid: true, profile: 'xrechnung-3.0' });
  expect(check.body.packs).toEqual(expect.arrayContaining(['xrechnung@3.0.2']));
  const res = await send(xml);
  expect(res.status).toBe(201);
  const until = Date.now() + 15_000;
  let doc = res.body;
  while (doc.deliveryStatus === 'pending' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    doc = (await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: a.apiKey })).body;
  }
  expect(doc).toMatchObject({ deliveryStatus: 'delivered', number });
});
