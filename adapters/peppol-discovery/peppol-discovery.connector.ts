/**
 * peppol-discovery: who can receive what on the Peppol network, by the network's own directory
 * (SML DNS → SMP), for `POST /v1/directory/verify` and for recipient checks where this deployment
 * is not its own access point. Capability `discover` only: it sends nothing (peppol-as4 discovers
 * the same way and also sends). Written against adapters/sdk and the Peppol kit.
 */
import { CONNECTOR_API_VERSION, type Connector } from '../sdk/index.ts';
import { BILLING_DOCUMENT_TYPES } from '../../mappings/identifiers/peppol-network.ts';
import { checkRecipient, DISCOVERY_OPTIONS } from '../peppol-kit/recipients.ts';

const peppolDiscovery = {
  manifest: {
    id: 'peppol-discovery',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Peppol discovery (SML + SMP)',
    description: 'Finds Peppol participants through the SML\'s DNS zone and their SMP, with the SMP signature verified',
    modes: ['live'],
    countries: ['*'],
    documentTypes: Object.keys(BILLING_DOCUMENT_TYPES),
    capabilities: { send: false, pushReceive: false, pollReceive: false, status: false, report: false, discover: true, registry: false },
    options: DISCOVERY_OPTIONS,
  },
  check: checkRecipient,
} satisfies Connector;

export default peppolDiscovery;
