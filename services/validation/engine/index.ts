/**
 * The validation engine: XSD (libxml2-wasm, each schema compiled once) + our Schematron packs, run as
 * the JavaScript generated from them (compiled/), or on saxon-js with EINV_RULE_ENGINE=saxon.
 *
 *   import { validate } from './services/validation/engine/index.ts';
 *   const r = validate(xmlBytes, { country: 'FR' });   // { valid, profile, findings: [...] }
 *
 * Pure module: no Moleculer, no database. Throws InvalidXmlInputError (code INVALID_REQUEST) for
 * input that is not acceptable XML (not well-formed, DOCTYPE/entities, unsupported root).
 */
import { parseInput, customizationIdOf, issueDateOf, profileOf } from './xml-input.ts';
import { validateXsd, preloadSchemas } from './xsd.ts';
import { PackRegistry } from './registry.ts';
import { parseForSaxon, runPack } from './run-pack.ts';
import type { ValidateOptions, ValidationFinding, ValidationResult } from './types.ts';
import { withoutReplaced, type Syntax } from '../../../schematrons/packs.ts';
import { loadConfig } from '../../shared/config.ts';
import { treeOfParsed } from '../../../mappings/xml/tree.ts';
import { indexTree } from './compiled/tree.ts';
import { DocumentContext, runCompiledPack } from './compiled/pack.ts';

export type { ValidateOptions, ValidationFinding, ValidationResult, Severity, DocumentSyntax, InputIssue } from './types.ts';
export { InvalidXmlInputError } from './types.ts';
export { PackRegistry } from './registry.ts';

let registry: PackRegistry | null = null;
let defaultEngine: 'compiled' | 'saxon' | undefined;

export function getRegistry(): PackRegistry {
  registry ??= PackRegistry.fromCache();
  return registry;
}

/** Load XSDs and every compiled pack now (call at service start). */
export function warmUp(): void {
  preloadSchemas();
  const reg = getRegistry();
  for (const f of reg.files) { reg.load(f); reg.loadCompiled(f); }
}

export function validate(xml: string | Uint8Array, options: ValidateOptions = {}): ValidationResult {
  const input = parseInput(xml);
  const customizationId = customizationIdOf(input);
  const profile = profileOf(input.syntax, customizationId);
  const findings: ValidationFinding[] = [];
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  if (!options.skipXsd) {
    findings.push(...validateXsd(input.text, input.syntax));
    timings.xsd = performance.now() - t0;
  }

  const syntax: Syntax | null = input.syntax === 'ubl-invoice' || input.syntax === 'ubl-creditnote' ? 'ubl'
    : input.syntax === 'cii' ? 'cii' : input.syntax === 'cdar' ? 'cdar' : null;
  const packs: string[] = [];
  if (syntax) {
    const reg = getRegistry();
    // Releases of a pack (Peppol BIS 3.0.19, 3.0.20 …) are chosen by the document's issue date.
    const issueDate = issueDateOf(input);
    let selected = options.packs
      ? reg.byIds(options.packs, syntax, issueDate)
      : reg.select({ syntax, customizationId, ...(options.country ? { country: options.country } : {}), ...(issueDate ? { issueDate } : {}) });
    if (options.networkPacks?.length && !options.packs) {
      const extra = reg.byIds(options.networkPacks, syntax, issueDate).filter((f) => !selected.includes(f));
      // A network pack a selected pack replaces does not run (a self-billing document gets the
      // self-billing rules, not the Billing rules, on the Peppol network).
      selected = withoutReplaced([...selected, ...extra]).sort((a, b) => a.order - b.order);
    }
    if (selected.length > 0) {
      const engine = options.engine ?? (defaultEngine ??= loadConfig().ruleEngine);
      let saxonDoc: unknown;
      let ctx: DocumentContext | undefined;
      for (const f of selected) {
        t0 = performance.now();
        const mod = engine === 'compiled' ? reg.loadCompiled(f) : null;
        if (mod) {
          ctx ??= new DocumentContext(input.text, indexTree(treeOfParsed(input.doc, input.text)));
          findings.push(...runCompiledPack(reg.load(f), mod, ctx));
        } else {
          saxonDoc ??= parseForSaxon(input.text);
          findings.push(...runPack(reg.load(f), saxonDoc));
        }
        packs.push(`${f.pack}@${f.version}`);
        timings[f.pack] = (timings[f.pack] ?? 0) + performance.now() - t0;
      }
    }
  }
  return {
    valid: !findings.some((f) => f.severity === 'fatal'),
    profile,
    syntax: input.syntax,
    customizationId,
    packs,
    findings,
    timings,
  };
}
