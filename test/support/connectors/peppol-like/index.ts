/**
 * A test connector (EINV_CONNECTORS_PATH=test/support/connectors) standing for a Peppol access
 * point: `network: 'peppol'`, so every send routed through it must pass the Peppol BIS rules
 * whatever the document's CustomizationID says. It reaches the participants `0106:*` and takes
 * every document it is given.
 */
import { CONNECTOR_API_VERSION, type CheckRequest, type Connector, type OutboundMessage, type SendResult } from '../../../../adapters/sdk/index.ts';

const peppolLike = {
  manifest: {
    id: 'peppol-like',
    version: '0.0.1',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Peppol-like network (tests)',
    description: 'A Peppol network stand-in: recipients 0106:*',
    modes: ['test'],
    countries: ['*'],
    documentTypes: ['invoice', 'credit-note'],
    network: 'peppol',
    capabilities: { send: true, pushReceive: false, pollReceive: false, status: false, report: false, discover: true },
  },
  async check(req: CheckRequest) {
    const known = req.recipient.peppolId?.startsWith('0106:') === true;
    return { known, canReceive: known, documentTypes: known ? ['invoice', 'credit-note'] : [] };
  },
  async send(msg: OutboundMessage): Promise<SendResult> {
    return { outcome: 'delivered', messageId: `peppol-like-${msg.documentId}` };
  },
} satisfies Connector;

export default peppolLike;
