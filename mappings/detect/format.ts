/**
 * `format=auto`: what a deposit is, from its magic bytes and XML root. CrossIndustryInvoice is
 * CII, Invoice/CreditNote (UBL namespaces) is UBL, CrossIndustryDocument in the ZUGFeRD 1.0
 * namespace is ZUGFeRD 1.0, `%PDF` is PDF (a hybrid PDF deposit is CII or ZUGFeRD 1.0 once its
 * embedded XML is extracted).
 */
import { CII_RSM_NS } from '../cii-d16b/namespaces.ts';
import { UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from '../ubl-2.1/namespaces.ts';
import { ZF1_RSM_NS } from '../zugferd-1/namespaces.ts';
import { sniffBinary, sniffXmlRoot } from './sniff.ts';
import type { XmlRoot } from './sniff.ts';

export type DetectedFormatName = 'ubl' | 'cii' | 'zugferd-1' | 'pdf' | 'gzip' | 'zip' | 'xml' | 'binary' | 'unknown';

export interface DetectedFormat {
  format: DetectedFormatName;
  /**
   * The API `format` value this deposit is handled as: structured XML, a PDF to extract, or raw;
   * `auto` for ZUGFeRD 1.0 XML, which no format of its own names (only auto-detection reads it).
   */
  apiFormat: 'ubl-xml' | 'cii-xml' | 'auto' | 'pdf' | 'raw';
  /** Media type read from the bytes. */
  mediaType: string;
  /** XML root, when the bytes are XML. */
  root?: XmlRoot;
  /** UBL document kind, when `format` is `ubl`. */
  ublDocument?: 'Invoice' | 'CreditNote';
}

const UBL_NAMESPACES = new Map([[UBL_INVOICE_NS, 'Invoice'], [UBL_CREDIT_NOTE_NS, 'CreditNote']]);

export function detectFormat(bytes: Uint8Array | string): DetectedFormat {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const bin = sniffBinary(b);
  if (bin?.name === 'pdf') return { format: 'pdf', apiFormat: 'pdf', mediaType: bin.mediaType };
  if (bin?.name === 'gzip') return { format: 'gzip', apiFormat: 'raw', mediaType: bin.mediaType };
  if (bin?.name === 'zip') return { format: 'zip', apiFormat: 'raw', mediaType: bin.mediaType };
  if (bin) return { format: 'binary', apiFormat: 'raw', mediaType: bin.mediaType };
  const root = sniffXmlRoot(b);
  if (!root) return { format: 'unknown', apiFormat: 'raw', mediaType: 'application/octet-stream' };
  if (root.localName === 'CrossIndustryInvoice' && (root.namespace === CII_RSM_NS || root.namespace === '')) {
    return { format: 'cii', apiFormat: 'cii-xml', mediaType: 'application/xml', root };
  }
  if (root.localName === 'CrossIndustryDocument' && root.namespace === ZF1_RSM_NS) {
    return { format: 'zugferd-1', apiFormat: 'auto', mediaType: 'application/xml', root };
  }
  const ubl = UBL_NAMESPACES.get(root.namespace);
  if (ubl !== undefined && root.localName === ubl) {
    return { format: 'ubl', apiFormat: 'ubl-xml', mediaType: 'application/xml', root, ublDocument: ubl as 'Invoice' | 'CreditNote' };
  }
  return { format: 'xml', apiFormat: 'raw', mediaType: 'application/xml', root };
}
