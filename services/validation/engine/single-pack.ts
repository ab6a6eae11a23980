/**
 * One pack on one document outside `validate()`: for the Peppol messages that are not invoices
 * (MLS, TSR, EUSR), whose roots the invoice intake refuses. The same hardened intake
 * (xml-input.ts `parseXmlDocument`) and the same two engines: the generated JavaScript, or
 * saxon-js on the pack's SEF (the reference the tests compare with).
 */
import type { Document as XmlDocument } from 'libxmljs2';
import { treeOfParsed } from '../../../mappings/xml/tree.ts';
import { getRegistry } from './index.ts';
import { parseForSaxon, runPack } from './run-pack.ts';
import { indexTree } from './compiled/tree.ts';
import { DocumentContext, runCompiledPack } from './compiled/pack.ts';
import type { CompiledPackFile } from '../../../schematrons/packs.ts';
import type { Severity } from './types.ts';

export interface PackFinding {
  /** The rule id, or RULE-EVALUATION-ERROR when the pack could not be evaluated */
  rule: string;
  flag: Severity;
  message: string;
  /** XPath of the offending node */
  location: string;
}

export type EngineChoice = { engine?: 'compiled' | 'saxon' };

/** The findings of one compiled pack file on a parsed document (empty: it meets every rule). */
export function runSinglePack(file: CompiledPackFile, text: string, doc: XmlDocument, options: EngineChoice = {}): PackFinding[] {
  const reg = getRegistry();
  const mod = options.engine === 'saxon' ? null : reg.loadCompiled(file);
  const findings = mod
    ? runCompiledPack(reg.load(file), mod, new DocumentContext(text, indexTree(treeOfParsed(doc, text))))
    : runPack(reg.load(file), parseForSaxon(text));
  return findings.map((f) => ({ rule: f.rule, flag: f.severity, message: f.message, location: f.location }));
}

/** A pack the build has not compiled: the deployment's setup is incomplete. */
export function packMissing(pack: string): Error {
  return new Error(`The ${pack} pack is not compiled: run "npm run build:schematrons" first.`);
}
