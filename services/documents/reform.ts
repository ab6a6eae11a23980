/**
 * Whether a document falls under the French e-invoicing reform, whose lifecycle codes (200–213)
 * and tax-platform reporting apply: addressed through the French directory, or from a French seller
 * to a French buyer. Other documents (a Belgian invoice over Peppol) keep the same API lifecycle,
 * but their events carry no French framework and their answers travel as the network's own
 * (a Peppol Invoice Response).
 */
import type { Document } from './document.entity.ts';

/** Peppol participant schemes of French companies (SIRET, SIREN, SIRENE) used by the French addressing rules. */
const FRENCH_SCHEMES = ['0009:', '0225:', '0002:'];

export function isFrenchReform(doc: Document): boolean {
  const receiver = doc.receiverPeppolId ?? (doc.recipient as { peppolId?: string } | null)?.peppolId ?? '';
  if (doc.recipient?.addressingIdentifier || FRENCH_SCHEMES.some((scheme) => receiver.startsWith(scheme))) return true;
  const n = doc.normalized as { seller?: { address?: { country?: string } }; buyer?: { address?: { country?: string } } } | null | undefined;
  return n?.seller?.address?.country === 'FR' && n?.buyer?.address?.country === 'FR';
}
