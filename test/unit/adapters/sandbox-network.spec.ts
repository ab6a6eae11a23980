/**
 * The sandbox-network connector: the SDK's contract suite, and each deterministic scenario.
 */
import { describeConnectorContract, memoryHost, sampleMessage } from '../../../adapters/sdk/contract-suite.ts';
import { sandboxNetworkConnector as c, SCENARIOS } from '../../../adapters/sandbox-network/sandbox-network.connector.ts';
import type { DirectoryEntry } from '../../../adapters/sdk/index.ts';
import { candidateConnectors, pickConnector, verifyingConnectors } from '../../../services/connectors/adapters.contract.ts';
import peppolDiscovery from '../../../adapters/peppol-discovery/peppol-discovery.connector.ts';

const bob: DirectoryEntry = { organizationId: 'org_b', companyId: 'comp_b', peppolId: '0208:0123456749', name: 'Bob BV', country: 'BE', documentTypes: ['invoice', 'credit-note'] };

describeConnectorContract(c, { known: { peppolId: bob.peppolId! }, unknown: { peppolId: '0208:0999999999' }, directory: [bob], documentType: 'invoice',
  // The sandbox network is this platform: the same message sent twice reaches the recipient's inbox once.
  receiveTwice: async (host, connector) => {
    const msg = sampleMessage({ peppolId: bob.peppolId! }, 'invoice');
    await connector.send!(msg, host);
    await connector.send!({ ...msg, attempt: 2 }, host);
  },
});

describe('scenarios', () => {
  const host = () => memoryHost([bob]);

  it('unknown and cannot-receive participants', async () => {
    expect(await c.check({ recipient: { peppolId: SCENARIOS.unknown }, documentType: 'invoice', livemode: false }, host())).toMatchObject({ known: false, canReceive: false });
    expect(await c.check({ recipient: { peppolId: SCENARIOS.cannotReceive }, documentType: 'invoice', livemode: false }, host())).toMatchObject({ known: true, canReceive: false, documentTypes: [] });
    expect(await c.check({ recipient: { peppolId: SCENARIOS.invoiceOnly }, documentType: 'purchase-order', livemode: false }, host())).toMatchObject({ known: true, canReceive: false, documentTypes: ['invoice'] });
    expect(await c.check({ recipient: { peppolId: SCENARIOS.invoiceOnly }, documentType: 'invoice', livemode: false }, host())).toMatchObject({ known: true, canReceive: true });
    expect(await c.check({ recipient: { companyId: 'comp_b' }, documentType: 'credit-note', livemode: false }, host())).toMatchObject({ known: true, canReceive: true, name: 'Bob BV', country: 'BE' });
    expect(await c.check({ recipient: { companyId: 'comp_b' }, documentType: 'quote', livemode: false }, host())).toMatchObject({ known: true, canReceive: false });
  });

  it('access-point rejection', async () => {
    expect(await c.send(sampleMessage({ peppolId: SCENARIOS.apReject }, 'invoice'), host())).toEqual({ outcome: 'rejected', errorCode: 'AP_REJECTED', errorMessage: expect.stringContaining('rejected') });
  });

  it('transient failures: always, or for the first n attempts', async () => {
    for (let attempt = 1; attempt <= 6; attempt++) {
      expect((await c.send(sampleMessage({ peppolId: SCENARIOS.transient }, 'invoice', attempt), host())).outcome).toBe('transient');
    }
    expect((await c.send(sampleMessage({ peppolId: SCENARIOS.transientThenDelivered(2) }, 'invoice', 2), host())).outcome).toBe('transient');
    expect((await c.send(sampleMessage({ peppolId: SCENARIOS.transientThenDelivered(2) }, 'invoice', 3), host())).outcome).toBe('delivered');
  });

  it('delayed delivery is confirmed by status once due', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const h = memoryHost([bob], { now: () => now });
    const r = await c.send(sampleMessage({ peppolId: SCENARIOS.delayed(30) }, 'invoice'), h);
    expect(r).toMatchObject({ outcome: 'accepted', checkAfterMs: 30_000 });
    const id = (r as { messageId: string }).messageId;
    expect(await c.status({ messageId: id, livemode: false }, h)).toEqual({ outcome: 'pending', checkAfterMs: 30_000 });
    now = new Date('2026-01-01T00:00:30Z');
    expect(await c.status({ messageId: id, livemode: false }, h)).toEqual({ outcome: 'delivered' });
  });

  it('delivers to a sandbox company through the inbox and names the recipient copy', async () => {
    const h = host();
    const r = await c.send(sampleMessage({ peppolId: bob.peppolId! }, 'invoice'), h);
    expect(r).toEqual({ outcome: 'delivered', messageId: expect.any(String), localDocumentId: 'doc_in_1' });
    expect(h.inboxed[0]).toMatchObject({ livemode: false, messageId: expect.stringMatching(/^doc_contract_/) });
    expect(h.inboxed[0]!.recipient).toEqual({ peppolId: bob.peppolId, organizationId: 'org_b', companyId: 'comp_b', name: 'Bob BV' });
  });
});

describe('content-based router', () => {
  const live = { ...c.manifest, id: 'peppol-as4', modes: ['live' as const] };
  const frLive = { ...c.manifest, id: 'fr-ppf', modes: ['live' as const], countries: ['FR'] };
  const both = { ...c.manifest, id: 'be-both', modes: ['live' as const, 'test' as const], countries: ['BE'] };
  it('test keys go to the sandbox network, live keys to a live connector, the country-specific one first', () => {
    expect(pickConnector([c.manifest, live, frLive], { livemode: false, documentType: 'invoice' })?.id).toBe('sandbox-network');
    expect(pickConnector([c.manifest, live, frLive], { livemode: true, documentType: 'invoice' })?.id).toBe('peppol-as4');
    expect(pickConnector([c.manifest, live, frLive], { livemode: true, country: 'FR', documentType: 'invoice' })?.id).toBe('fr-ppf');
    expect(pickConnector([c.manifest], { livemode: true, documentType: 'invoice' })).toBeUndefined();
    expect(pickConnector([c.manifest], { livemode: false, documentType: 'event' })).toBeUndefined();
  });

  it('a connector serving both modes serves live and test keys, and all candidates come best first', () => {
    expect(pickConnector([c.manifest, both], { livemode: true, country: 'BE', documentType: 'invoice' })?.id).toBe('be-both');
    expect(pickConnector([c.manifest, both], { livemode: false, country: 'BE', documentType: 'invoice' })?.id).toBe('be-both');
    expect(candidateConnectors([c.manifest, both, live], { livemode: false, country: 'BE', documentType: 'invoice' }).map((m) => m.id)).toEqual(['be-both', 'sandbox-network']);
  });

  it('a clearance connector of the sender\'s country comes first whoever the recipient is; a sender of another country never reaches it', () => {
    const zatca = { ...both, id: 'sa-zatca', countries: ['SA'], documentTypes: ['invoice'], capabilities: { ...both.capabilities, clearance: true }, authority: 'ZATCA' };
    const notClearing = { ...both, id: 'sa-other', countries: ['SA'] };
    expect(candidateConnectors([c.manifest, zatca, notClearing], { livemode: false, senderCountry: 'SA', documentType: 'invoice' }).map((m) => m.id)).toEqual(['sa-zatca', 'sandbox-network']);
    expect(candidateConnectors([c.manifest, zatca, both], { livemode: false, country: 'BE', senderCountry: 'SA', documentType: 'invoice' }).map((m) => m.id)).toEqual(['sa-zatca', 'be-both', 'sandbox-network']);
    expect(candidateConnectors([c.manifest, zatca], { livemode: false, senderCountry: 'BE', documentType: 'invoice' }).map((m) => m.id)).toEqual(['sandbox-network']);
    expect(candidateConnectors([c.manifest, zatca], { livemode: false, senderCountry: 'SA', documentType: 'purchase-order' }).map((m) => m.id)).toEqual(['sandbox-network']);
  });

  it('directory verification asks the network directory (discovery-only) first, then the senders, never a sender of one country', () => {
    const all = [c.manifest, live, frLive, peppolDiscovery.manifest];
    expect(verifyingConnectors(all, { livemode: true, documentType: 'invoice' }).map((m) => m.id)).toEqual(['peppol-discovery', 'peppol-as4']);
    expect(verifyingConnectors(all, { livemode: false, documentType: 'invoice' }).map((m) => m.id)).toEqual(['sandbox-network']);
    // a discovery-only connector never carries a document
    expect(candidateConnectors(all, { livemode: true, documentType: 'invoice' }).map((m) => m.id)).toEqual(['peppol-as4']);
  });
});
