/**
 * Content-based routing: the connectors that may carry a document, best first, by the caller's
 * mode (test keys never reach a live network), the recipient's country and the document type. A
 * connector naming the country comes before a `*` one; among equals, by id. The send then asks
 * each candidate with the `discover` capability whether it reaches the recipient (first known wins).
 * Manifests come from the broker registry (adapter services' metadata), never from a list in code.
 */
import type { ConnectorManifest } from '../../adapters/sdk/index.ts';

export interface RouteRequest {
  livemode: boolean;
  /** Recipient country when known (ISO 3166-1 alpha-2). */
  country?: string | null;
  documentType: string;
}

export function candidateConnectors(manifests: readonly ConnectorManifest[], req: RouteRequest): ConnectorManifest[] {
  const mode = req.livemode ? 'live' : 'test';
  const specific = (m: ConnectorManifest) => (req.country && m.countries.includes(req.country) ? 0 : 1);
  return manifests
    .filter((m) => m.modes.includes(mode)
      && m.capabilities.send
      && m.documentTypes.includes(req.documentType)
      && (m.countries.includes('*') || (req.country ? m.countries.includes(req.country) : false)))
    .sort((a, b) => specific(a) - specific(b) || a.id.localeCompare(b.id));
}

export function pickConnector(manifests: readonly ConnectorManifest[], req: RouteRequest): ConnectorManifest | undefined {
  return candidateConnectors(manifests, req)[0];
}
