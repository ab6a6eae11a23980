/**
 * The form a ZUGFeRD 1.0 invoice travels in. Nobody reads ZUGFeRD 1.0 any more on a network (it
 * predates EN 16931 and has no rule set of its own beyond its schema), so it is delivered as the
 * EN 16931 document derived from its canonical view: CII D16B (ZUGFeRD's own successor syntax)
 * by default, UBL 2.1 in the Peppol BIS Billing 3.0 binding on a Peppol network. The EN 16931 rules
 * (and the destination's packs) are run on exactly this form; the caller's bytes stay the record.
 *
 * Only the document's claims change: BT-24 becomes the specification the derived form follows
 * (the ZUGFeRD 1.0 guideline stays in the stored canonical view), and on Peppol BT-23 and the
 * electronic addresses (BT-34 / BT-49), which ZUGFeRD 1.0 has no place for, come from the routing
 * the send used: the sending company's and the recipient's Peppol ids.
 */
import type { CanonicalInvoice, SchemedId } from '../canonical/model.ts';
import { PEPPOL_BIS3_CUSTOMIZATION_ID, PEPPOL_BIS3_PROFILE_ID } from '../canonical/codes.ts';
import { canonicalToCii } from '../cii-d16b/from-canonical.ts';
import { canonicalToUbl } from '../ubl-2.1/from-canonical.ts';

/** BT-24 of a derived CII: the EN 16931 core, which is what the derivation can promise. */
export const EN16931_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017';

export interface DeliveryTarget {
  /** `ubl` on a Peppol network (BIS Billing is UBL), `cii` otherwise. */
  syntax: 'ubl' | 'cii';
  /** Peppol ids (`scheme:value`) of the sending company and the recipient, for BT-34 / BT-49 on Peppol. */
  sellerEndpoint?: string;
  buyerEndpoint?: string;
}

export interface DeliveryForm {
  xml: string;
  syntax: 'ubl-2.1' | 'cii-d16b';
  /** The canonical view the XML was rendered from (BT-24 and, on Peppol, BT-23/34/49 as delivered). */
  canonical: CanonicalInvoice;
}

function endpoint(peppolId: string | undefined): SchemedId | undefined {
  const m = peppolId ? /^(\d{4}):(.+)$/.exec(peppolId) : null;
  return m ? { scheme: m[1]!, value: m[2]! } : undefined;
}

export function zugferd1DeliveryForm(c: CanonicalInvoice, target: DeliveryTarget): DeliveryForm {
  if (target.syntax === 'cii') {
    const canonical: CanonicalInvoice = { ...c, customizationId: EN16931_CUSTOMIZATION_ID };
    return { xml: canonicalToCii(canonical), syntax: 'cii-d16b', canonical };
  }
  const sellerEndpoint = c.seller.electronicAddress ?? endpoint(target.sellerEndpoint);
  const buyerEndpoint = c.buyer.electronicAddress ?? endpoint(target.buyerEndpoint);
  const canonical: CanonicalInvoice = {
    ...c,
    customizationId: PEPPOL_BIS3_CUSTOMIZATION_ID,
    profileId: PEPPOL_BIS3_PROFILE_ID,
    seller: sellerEndpoint ? { ...c.seller, electronicAddress: sellerEndpoint } : c.seller,
    buyer: buyerEndpoint ? { ...c.buyer, electronicAddress: buyerEndpoint } : c.buyer,
  };
  return { xml: canonicalToUbl(canonical), syntax: 'ubl-2.1', canonical };
}
