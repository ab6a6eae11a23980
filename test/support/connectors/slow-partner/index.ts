/**
 * A test connector (enabled with EINV_CONNECTORS_PATH=test/support/connectors): sends each
 * document over HTTP to a partner at `url` (a real server on 127.0.0.1 started by the test), one
 * path per recipient, so the test decides which recipients answer and which hang.
 */
import { CONNECTOR_API_VERSION, ConnectorError, type CheckRequest, type Connector, type ConnectorHost, type OutboundMessage, type SendResult } from '../../../../adapters/sdk/index.ts';

const slowPartner = {
  manifest: {
    id: 'slow-partner',
    version: '0.0.1',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Slow partner (tests)',
    description: 'Posts each document to a partner over HTTP; recipients 9999:slow-*',
    modes: ['test'],
    countries: ['*'],
    documentTypes: ['invoice', 'credit-note'],
    capabilities: { send: true, pushReceive: false, pollReceive: false, status: false, report: false, discover: true },
    options: {
      url: { type: 'string', description: 'Partner base URL', required: true },
      token: { type: 'string', description: 'Bearer token of the partner', required: true, secret: true },
    },
  },
  async check(req: CheckRequest) {
    const known = req.recipient.peppolId?.startsWith('9999:slow-') === true;
    return { known, canReceive: known, documentTypes: known ? ['invoice', 'credit-note'] : [] };
  },
  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    const res = await host.http.request(`${String(host.config.url)}/${encodeURIComponent(msg.recipient.peppolId!)}`, {
      method: 'POST', headers: { authorization: `Bearer ${host.secrets.get('token').reveal()}`, 'content-type': msg.payload.contentType },
      body: Buffer.from(msg.payload.content, 'base64'), timeoutMs: 60_000,
    });
    if (res.status >= 500) throw ConnectorError.transient(`HTTP_${res.status}`, `partner answered ${res.status}`);
    if (res.status >= 400) throw ConnectorError.permanent(`PARTNER:${res.status}`, `partner refused the document: ${res.text()}`);
    return { outcome: 'delivered', messageId: res.text() };
  },
} satisfies Connector;

export default slowPartner;
