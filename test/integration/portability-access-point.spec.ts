/**
 * GET /v1/portability/access-point/{participantId} against a Peppol network on 127.0.0.1: the SML
 * zone is a real DNS server, the participant's SMP a real HTTP server signing its metadata (with
 * access point B's certificate in the endpoint). The answer names B from that certificate: its
 * operator (O) and seat id (CN). An unregistered participant is 404, a malformed id 400, and an
 * SMP that stops answering 503 (not cached as a "no").
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startLoopbackPeppol, startRemoteSmp, type LoopbackPeppol, type RemoteSmp } from '../support/peppol-network.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

const B_PARTICIPANT = '0208:0403170701';
const DOWN_PARTICIPANT = '0208:0999999999';
let net: LoopbackPeppol;
let t: TestApp;
let bSmp: RemoteSmp;
let key: string;

beforeAll(async () => {
  net = await startLoopbackPeppol('einv-porta-ap-');
  t = await startTestApp();
  bSmp = await startRemoteSmp(net, net.pki.ap2, () => 'https://ap-b.example');
  bSmp.publish(B_PARTICIPANT, '/as4');
  // A participant whose SML record points at an SMP nobody answers on.
  net.sml.register(DOWN_PARTICIPANT, 'http://127.0.0.1:9');
  key = (await bootstrap(t.baseUrl, { label: 'porta-ap' })).apiKey;
}, 90_000);
afterAll(async () => {
  await t?.stop();
  await bSmp?.close();
  await net?.close();
});

const lookup = (participant: string) => api(t.baseUrl, 'GET', `/v1/portability/access-point/${encodeURIComponent(participant)}`, { key });

it('resolves SML → SMP → endpoint certificate and names the routing platform from it', async () => {
  const res = await lookup(B_PARTICIPANT);
  expect(res.status).toBe(200);
  const subject = net.pki.ap2.certificate.subject.replace(/\n/g, ', ');
  expect(res.body).toEqual({
    participantId: B_PARTICIPANT, registered: true, canReceive: true, network: 'peppol-as4', checkedAt: expect.any(String),
    endpoint: { url: 'https://ap-b.example/as4', transportProfile: 'peppol-transport-as4-v2_0', certificateSubject: subject, certificateNotAfter: new Date(net.pki.ap2.certificate.validTo).toISOString() },
    platform: { name: /O=([^,\n]+)/.exec(net.pki.ap2.certificate.subject)![1], seatId: 'POP000002', country: /C=([^,\n]+)/.exec(net.pki.ap2.certificate.subject)![1] },
  });
  // Also in the scheme-prefixed form the SMP itself uses.
  expect((await lookup(`iso6523-actorid-upis::${B_PARTICIPANT}`)).body.participantId).toBe(B_PARTICIPANT);
});

it('404 for a participant the SML does not know, 400 for a malformed id, 503 when its SMP does not answer', async () => {
  expectEnvelope(await lookup('0208:0123456749'), 404, 'RESOURCE_NOT_FOUND');
  expectEnvelope(await lookup('not-a-participant'), 400, 'INVALID_REQUEST');
  expectEnvelope(await lookup(DOWN_PARTICIPANT), 503, 'UPSTREAM_UNAVAILABLE');
});
