/**
 * The translators in the house shape `detect / toCanonical / fromCanonical`, for callers that pick
 * a syntax at run time (a destination's native format, a deposit's detected format).
 */
import type { CanonicalInvoice } from './canonical/model.ts';
import type { ParsedDocument } from './ubl-2.1/to-canonical.ts';
import { detectUbl } from './ubl-2.1/detect.ts';
import { ublToCanonical } from './ubl-2.1/to-canonical.ts';
import { canonicalToUbl } from './ubl-2.1/from-canonical.ts';
import { detectCii } from './cii-d16b/detect.ts';
import { ciiToCanonical } from './cii-d16b/to-canonical.ts';
import { canonicalToCii } from './cii-d16b/from-canonical.ts';

export interface Translator {
  id: 'ubl-2.1' | 'cii-d16b';
  detect(bytes: Uint8Array | string): boolean;
  toCanonical(xml: string | Buffer): ParsedDocument;
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

export const TRANSLATORS: readonly Translator[] = [ubl21, ciiD16b];

/** The translator whose syntax the bytes are, if any. */
export function translatorFor(bytes: Uint8Array | string): Translator | undefined {
  return TRANSLATORS.find((t) => t.detect(bytes));
}
