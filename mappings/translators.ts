/**
 * The translators in the house shape `detect / toCanonical / fromCanonical`, for callers that pick
 * a syntax at run time (a destination's native format, a deposit's detected format).
 */
import type { CanonicalInvoice } from './canonical/model.ts';
import type { ParsedDocument } from './ubl-2.1/to-canonical.ts';
import type { ParsedFatturaPa } from './fatturapa/to-canonical.ts';
import { detectUbl } from './ubl-2.1/detect.ts';
import { ublToCanonical } from './ubl-2.1/to-canonical.ts';
import { canonicalToUbl } from './ubl-2.1/from-canonical.ts';
import { detectCii } from './cii-d16b/detect.ts';
import { ciiToCanonical } from './cii-d16b/to-canonical.ts';
import { canonicalToCii } from './cii-d16b/from-canonical.ts';
import { detectFatturaPa } from './fatturapa/detect.ts';
import { fatturaPaToCanonical } from './fatturapa/to-canonical.ts';
import { canonicalToFatturaPa } from './fatturapa/from-canonical.ts';

export type TranslatorId = 'ubl-2.1' | 'cii-d16b' | 'fatturapa-1.2';

/** A document read by a translator: the canonical view, and the caller's bytes unchanged beside it. */
export interface TranslatedDocument {
  canonical: CanonicalInvoice;
  original: string | Buffer;
  syntax: ParsedDocument['syntax'] | ParsedFatturaPa['syntax'];
}

export interface Translator {
  id: TranslatorId;
  detect(bytes: Uint8Array | string): boolean;
  toCanonical(xml: string | Buffer): TranslatedDocument;
  fromCanonical(c: CanonicalInvoice): string;
}

export const ubl21: Translator = {
  id: 'ubl-2.1',
  detect: (bytes) => detectUbl(bytes) !== undefined,
  toCanonical: ublToCanonical,
  fromCanonical: canonicalToUbl,
};

export const ciiD16b: Translator = {
  id: 'cii-d16b',
  detect: detectCii,
  toCanonical: ciiToCanonical,
  fromCanonical: canonicalToCii,
};

/**
 * FatturaPA 1.2.2. `fromCanonical` takes the Italian fields from the invoice itself (README of
 * mappings/fatturapa); a transmission that states them (the it-sdi connector) calls
 * canonicalToFatturaPa with its options. A batch file (several bodies) is refused by `toCanonical`.
 */
export const fatturaPa12: Translator = {
  id: 'fatturapa-1.2',
  detect: detectFatturaPa,
  toCanonical: fatturaPaToCanonical,
  fromCanonical: (c) => canonicalToFatturaPa(c),
};

export const TRANSLATORS: readonly Translator[] = [ubl21, ciiD16b, fatturaPa12];

/** The translator whose syntax the bytes are, if any. */
export function translatorFor(bytes: Uint8Array | string): Translator | undefined {
  return TRANSLATORS.find((t) => t.detect(bytes));
}
