/**
 * A test connector (enabled with EINV_CONNECTORS_PATH=test/support/connectors): sends each
 * document over HTTP to a partner at `url` (a real server on 127.0.0.1 started by the test), one
 * path per recipient, so the test decides which recipients answer and which hang. The partner
 * pushes documents back to `POST /connectors/slow-partner/inbound`, signed with HMAC-SHA256 of
 * the body under the shared token (`x-signature`, hex).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CONNECTOR_API_VERSION, ConnectorError, type CheckRequest, type Connector, type ConnectorHost, type InboundRequest, type InboundResponse, type OutboundMessage, type SendResult } from '../../../../adapters/sdk/index.ts';

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
    capabilities: { send: true, pushReceive: true, pollReceive: false, status: false, report: false, discover: true },
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
  routes: [{
    // Identifies the caller by its client certificate (mutual TLS terminated in front of the gateway).
    method: 'POST',
    path: '/whoami',
    auth: 'mtls',
    async handle(req: InboundRequest): Promise<InboundResponse> {
      return { status: 200, body: req.clientCertificate!.subject };
    },
  }, {
    method: 'POST',
    path: '/inbound',
    auth: 'signature',
    async verify(req: InboundRequest, host: ConnectorHost) {
      const expected = createHmac('sha256', host.secrets.get('token').reveal()).update(req.body).digest();
      const given = Buffer.from(req.headers['x-signature'] ?? '', 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    async handle(req: InboundRequest, host: ConnectorHost): Promise<InboundResponse> {
      const m = JSON.parse(req.body.toString('utf8')) as { messageId: string; to: string; number: string };
      const entry = await host.directory.lookup({ peppolId: m.to }, false);
      if (!entry) return { status: 422, body: `unknown recipient ${m.to}` };
      const accepted = await host.inbound.accept({
        messageId: m.messageId, livemode: false, type: 'purchase-order', number: m.number,
        sender: { peppolId: '9999:slow-partner', name: 'Slow partner' },
        recipient: { peppolId: entry.peppolId, organizationId: entry.organizationId, companyId: entry.companyId, name: entry.name },
        payload: { content: req.body.toString('base64'), contentType: 'application/json', normalized: { number: m.number } },
      });
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(accepted) };
    },
  }],
} satisfies Connector;

export default slowPartner;
