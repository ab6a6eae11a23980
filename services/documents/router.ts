/**
 * Content-based routing: picks the connector that carries a document by the caller's mode (test
 * keys never reach a live network), the recipient's country and the document type. Among several
 * candidates a connector naming the country wins over a `*` one.
 */
import type { ConnectorManifest } from '../../adapters/sdk/index.ts';

export interface RouteRequest {
  livemode: boolean;
  /** Recipient country when known (ISO 3166-1 alpha-2). */
  country?: string | null;
  documentType: string;
}

export function pickConnector(manifests: readonly ConnectorManifest[], req: RouteRequest): ConnectorManifest | undefined {
  const mode = req.livemode ? 'live' : 'test';
  const candidates = manifests.filter((m) => (m.mode === mode || m.mode === 'both')
    && m.documentTypes.includes(req.documentType)
    && (m.countries.includes('*') || (req.country ? m.countries.includes(req.country) : false)));
  const specific = candidates.find((m) => req.country && m.countries.includes(req.country));
  return specific ?? candidates[0];
}
