/**
 * The ro-anaf connector against the SDK's contract suite: the in-memory host (no network: an upload
 * is transient) and, for receiving, the same host talking to the ANAF simulator on 127.0.0.1 through
 * the platform's HTTP client (the same invoice listed again after a restart is stored once). Before
 * the network: what it refuses without calling ANAF.
 */
import { describeConnectorContract, memoryHost, sampleMessage, type MemoryHost } from '../../../adapters/sdk/contract-suite.ts';
import roAnaf, { sellerCif } from '../../../adapters/ro-anaf/ro-anaf.connector.ts';
import { createHttpClient, type HttpClient } from '../../../services/connectors/http-client.ts';
import { jsonToCanonical, canonicalToCiusRoUbl } from '../../../mappings/index.ts';
import type { DirectoryEntry } from '../../../adapters/sdk/index.ts';
import { startAnafSimulator, type AnafSimulator } from '../../support/anaf-simulator.ts';
import { romanianJsonInvoice } from '../../support/romanian-invoice.ts';

let sim: AnafSimulator;
let http: HttpClient;
beforeAll(async () => { sim = await startAnafSimulator({ processingMs: 0 }); http = createHttpClient(); });
afterAll(async () => { await http.close(); await sim.close(); });

const buyer: DirectoryEntry = { organizationId: 'org_ro', companyId: 'comp_ro_buyer', peppolId: '9947:RO14399840', name: 'Client Comercial SA', country: 'RO', documentTypes: ['invoice', 'credit-note'] };
const config = () => ({ clientId: sim.clientId, baseUrl: sim.prodUrl, testBaseUrl: sim.testUrl, tokenUrl: sim.tokenUrl, cifs: '14399840', timeoutMs: 5000 });
const secrets = () => ({ clientSecret: sim.clientSecret, refreshToken: sim.refreshToken });
const invoiceXml = (number: string) => canonicalToCiusRoUbl(jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice(number) }, { today: '2026-11-02' }));

// The suite reads its fixtures when it runs its tests, after beforeAll: getters give the simulator's values.
const fixtures = {
  known: { peppolId: '9947:RO14399840', country: 'RO' }, unknown: { peppolId: '9947:RO99999999', country: 'RO' },
  directory: [buyer], documentType: 'invoice',
  get config() { return sim ? config() : {}; },
  get secrets() { return sim ? secrets() : {}; },
  async receiveTwice(h: MemoryHost, connector: typeof roAnaf) {
    Object.assign(h, { http });
    sim.receive('14399840', '18547290', invoiceXml(`RCV-${Date.now()}`));
    await h.runTimers();
    // A restart: the process forgets what it took; ANAF lists the invoice again.
    await connector.stop(h);
    await connector.start(h);
    await h.runTimers();
  },
};
describeConnectorContract(roAnaf, fixtures);

describe('ro-anaf before the network', () => {
  const host = () => memoryHost([buyer], { config: config(), secrets: secrets() });
  const canonicalMessage = (document: Record<string, unknown>, type = 'invoice') => {
    const canonical = jsonToCanonical({ type, document }, { today: '2026-11-02' });
    return { ...sampleMessage({ peppolId: '9947:RO14399840' }, type), payload: { content: '', contentType: 'application/json', normalized: canonical as unknown as Record<string, unknown> } };
  };

  it('refuses a document it cannot write under CIUS-RO, naming the field, without calling ANAF', async () => {
    const h = host();
    const doc = romanianJsonInvoice('FCT-1', { buyer: { name: 'B SA', vatNumber: 'RO14399840', address: { street: 'Str 1', city: 'Iasi', country: 'RO' } } });
    expect(await roAnaf.send(canonicalMessage(doc), h)).toMatchObject({ outcome: 'rejected', errorCode: 'CIUS_RO_INVALID', errorMessage: expect.stringContaining('document.buyer.address.subdivision') });
  });

  it('refuses a message without a structured invoice, and types ANAF does not take', async () => {
    const h = host();
    expect(await roAnaf.send(sampleMessage({ peppolId: '9947:RO14399840' }, 'invoice'), h)).toMatchObject({ outcome: 'rejected', errorCode: 'CIUS_RO_INVALID' });
    expect(await roAnaf.send(sampleMessage({ peppolId: '9947:RO14399840' }, 'purchase-order'), h)).toMatchObject({ outcome: 'rejected', errorCode: 'ANAF_UNSUPPORTED_TYPE' });
  });

  it('a message id it did not give is rejected by status, not polled forever', async () => {
    expect(await roAnaf.status({ messageId: 'nonsense', livemode: false }, host())).toMatchObject({ outcome: 'rejected', errorCode: 'ANAF_BAD_MESSAGE_ID' });
  });

  it('the seller CUI comes from the RO VAT number, else the registration ids', () => {
    const c = jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice('FCT-1') }, { today: '2026-11-02' });
    expect(sellerCif(c)).toBe('18547290');
    expect(sellerCif({ ...c, seller: { ...c.seller, vatId: undefined, legalRegistration: { value: '123456' } } })).toBe('123456');
    expect(sellerCif({ ...c, seller: { ...c.seller, vatId: 'DE123456789', legalRegistration: undefined } })).toBeUndefined();
  });
});
