/** ZATCA (Saudi Arabia, Fatoora phase 2): the KSA UBL invoice, its hash and its QR. Pure. */
export { canonicalToZatca, zatcaVatNumber, isZatcaVatNumber, FIRST_PIH, PROFILE_ID, SIGNATURE_ID, SIGNATURE_METHOD, EXT_NS, type ZatcaFacts, type ZatcaStamp, type ZatcaInvoiceKind } from './from-canonical.ts';
export { zatcaInvoiceHash, canonicalInvoiceForHash } from './invoice-hash.ts';
export { encodeZatcaQr, decodeZatcaQr, QrError, type ZatcaQrFields } from './qr.ts';
