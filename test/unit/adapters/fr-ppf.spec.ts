/**
 * The fr-ppf connector against the SDK's contract suite (in-memory host, no network: a filing is a
 * transient outcome or, for what is not a French lifecycle status, a rejection), and what it refuses
 * before any network call.
 */
import { describeConnectorContract, memoryHost, sampleReport } from '../../../adapters/sdk/contract-suite.ts';
import frPpf from '../../../adapters/fr-ppf/fr-ppf.connector.ts';

const config = { baseUrl: 'http://127.0.0.1:9/ppf', tokenUrl: 'http://127.0.0.1:9/token', clientId: 'contract-client', ackPollAttempts: 1, ackPollMs: 0 };
const secrets = { clientSecret: 'contract-secret-value' };

describeConnectorContract(frPpf, { known: { country: 'FR' }, unknown: { country: 'FR' }, directory: [], documentType: 'invoice', config, secrets });

describe('fr-ppf before the network', () => {
  const host = () => memoryHost([], { config, secrets });

  it('refuses what is not a French lifecycle status, and a payload that is not a CDAR message', async () => {
    expect(await frPpf.report(sampleReport(), host())).toMatchObject({ outcome: 'rejected', errorCode: 'PPF_UNSUPPORTED_REPORT' });
    const notCdar = { ...sampleReport(), kind: 'lifecycle' as const };
    expect(await frPpf.report(notCdar, host())).toMatchObject({ outcome: 'rejected', errorCode: 'PPF_INVALID_CDAR' });
    const empty = { ...notCdar, payload: { ...notCdar.payload, content: '' } };
    expect(await frPpf.report(empty, host())).toMatchObject({ outcome: 'rejected', errorCode: 'PPF_INVALID_CDAR', errorMessage: expect.stringContaining('empty') });
  });

  it('a CDAR it cannot deliver (no network) is transient, never remembered as filed', async () => {
    const { lifecycleToCdar } = await import('../../../mappings/index.ts');
    const { frenchInvoice } = await import('../../support/french-invoice.ts');
    const xml = lifecycleToCdar({ messageId: 'm1', issuedAt: '2026-11-25T10:00:00Z', invoice: frenchInvoice(), step: { code: '200', emittedBy: 'seller_platform', at: '2026-11-25T10:00:00Z' } });
    const msg = { ...sampleReport(), kind: 'lifecycle' as const, payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml' } };
    const h = host();
    expect(await frPpf.report(msg, h)).toMatchObject({ outcome: 'transient', errorCode: 'HTTP_NETWORK_ERROR' });
    expect(await frPpf.report(msg, h)).toMatchObject({ outcome: 'transient' });
    expect(h.logged.join('\n')).not.toContain(secrets.clientSecret);
  });
});
