/**
 * KoSIT XML-Mutate (`<?xmute …?>`) cases, semantics of shared/corpus/README.md §3: every PI is an
 * independent mutation of the original document applied to the next sibling element (identity,
 * remove, empty, code = one mutant per value, whitespace; `attribute="x"` targets that attribute);
 * `schematron-valid` rules must not fire on the mutant(s), `schematron-invalid` rules must fire at
 * least once. Rules are routed to our packs by id: PEPPOL-… → peppol-bis, BR-DE-…, BR-DEX-…, BR-TMP-…
 * → xrechnung, the rest (cenubl/cencii) → en16931. A rule whose pack is not built is "pack missing".
 */
import libxml from 'libxmljs2';
import type { Element, Node } from 'libxmljs2';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { validate, getRegistry } from '../../services/validation/engine/index.ts';
import type { Syntax } from '../../schematrons/packs.ts';
import { CORPUS } from './vefa-runner.ts';

export interface XmuteSource { dir: string; group: string; knownDivergence: boolean }

export const XMUTE_SOURCES: XmuteSource[] = [
  { dir: 'validator-configuration-xrechnung/src/test/cen-unit-test', group: 'kosit-cen-unit-test', knownDivergence: false },
  { dir: 'validator-configuration-xrechnung/src/test/instances', group: 'kosit-instances', knownDivergence: false },
  { dir: 'validator-configuration-xrechnung/src/test/unexpected', group: 'kosit-unexpected (known CEN divergences)', knownDivergence: true },
  { dir: 'xrechnung-schematron/test/instances/ubl-inv', group: 'xrechnung-ubl-inv', knownDivergence: false },
  { dir: 'xrechnung-schematron/test/instances/ubl-cn', group: 'xrechnung-ubl-cn', knownDivergence: false },
  { dir: 'xrechnung-schematron/test/instances/cii', group: 'xrechnung-cii', knownDivergence: false },
];

export function packForRule(rule: string): string {
  if (rule.startsWith('PEPPOL-')) return 'peppol-bis';
  if (/^BR-(DE|DEX|TMP)-/.test(rule)) return 'xrechnung';
  return 'en16931';
}

interface Pi { attrs: Record<string, string>; index: number }

function parsePiAttrs(data: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of data.matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]!] = m[2] ?? m[3] ?? '';
  return out;
}

export interface MutantCheck {
  key: string;
  group: string;
  file: string;
  mutant: string;
  rule: string;
  expect: 'valid' | 'invalid';
  agree: boolean;
  packMissing: boolean;
  knownDivergence: boolean;
  reason: string;
}

const refs = (v: string | undefined): string[] => (v ?? '').split(/[\s,]+/).filter(Boolean);

function parseWithPis(text: string): { doc: ReturnType<typeof libxml.parseXml>; pis: Node[] } {
  const doc = libxml.parseXml(text, { noent: false, nonet: true, dtdload: false });
  const pis: Node[] = [];
  const walk = (node: Node): void => {
    for (const c of (node as Element).childNodes?.() ?? []) {
      if (c.type() === 'pi' && (c as unknown as { name(): string }).name() === 'xmute') pis.push(c);
      if (c.type() === 'element') walk(c);
    }
  };
  walk(doc.root()!);
  return { doc, pis };
}

/** Apply PI number `n` (document order) to a fresh copy of the document; one text per mutant. */
function mutants(text: string, n: number): { label: string; xml: string }[] | string {
  const { doc, pis } = parseWithPis(text);
  const pi = pis[n]!;
  const attrs = parsePiAttrs((pi as unknown as { text(): string }).text());
  let target: Node | null = pi.nextSibling();
  while (target && target.type() !== 'element') target = target.nextSibling();
  if (!target) return 'no target element after the PI';
  const el = target as Element;
  const attrName = attrs.attribute;
  const mut = attrs.mutator ?? 'identity';
  const ser = (): string => doc.toString(false);
  switch (mut) {
    case 'identity': return [{ label: 'identity', xml: ser() }];
    case 'remove':
      if (attrName) el.attr(attrName)?.remove(); else el.remove();
      return [{ label: 'remove', xml: ser() }];
    case 'empty':
      if (attrName) el.attr(attrName, ''); else el.text('');
      return [{ label: 'empty', xml: ser() }];
    case 'whitespace':
      el.text(`  ${el.text()}  `);
      return [{ label: 'whitespace', xml: ser() }];
    case 'code': {
      const values = (attrs.values ?? '').split(attrs.separator ?? ',').map((v) => v.trim());
      const out: { label: string; xml: string }[] = [];
      for (const v of values) {
        if (attrName) el.attr(attrName, v); else el.text(v);
        out.push({ label: `code=${v}`, xml: ser() });
      }
      return out;
    }
    default: return `unsupported mutator ${mut}`;
  }
}

/**
 * Every check of the given sources (default: all), optionally only the rules `ruleFilter` keeps (a PI whose
 * rules are all filtered out is not run).
 */
export function runXmute(sources: readonly XmuteSource[] = XMUTE_SOURCES, ruleFilter: (rule: string) => boolean = () => true): MutantCheck[] {
  const reg = getRegistry();
  const results: MutantCheck[] = [];
  // identity mutants of one file are the same document: validate each distinct (packs, text) once
  const memo = new Map<string, Set<string>>();
  for (const src of sources) {
    const dir = join(CORPUS, src.dir);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.xml')).sort()) {
      const text = readFileSync(join(dir, f), 'utf8');
      if (!text.includes('<?xmute')) continue;
      const piTexts = parseWithPis(text).pis.map((p) => (p as unknown as { text(): string }).text());
      if (piTexts.length === 0) continue;
      const syntax: Syntax = text.includes('CrossIndustryInvoice') && !text.includes('urn:oasis:names:specification:ubl:schema:xsd:Invoice-2')
        && !text.includes('urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2') ? 'cii' : 'ubl';
      piTexts.forEach((piText, n) => {
        const attrs = parsePiAttrs(piText);
        const id = attrs.id ?? `pi-${n + 1}`;
        const checks = [
          ...refs(attrs['schematron-valid']).map((r) => ({ r, expect: 'valid' as const })),
          ...refs(attrs['schematron-invalid']).map((r) => ({ r, expect: 'invalid' as const })),
        ].map(({ r, expect }) => ({ rule: r.includes(':') ? r.slice(r.indexOf(':') + 1) : r, expect })).filter((c) => ruleFilter(c.rule));
        if (checks.length === 0) return;
        const file = `${src.dir}/${f}`;
        const ms = mutants(text, n);
        const packsNeeded = [...new Set(checks.map((c) => packForRule(c.rule)))];
        const present = packsNeeded.filter((p) => reg.has(p, syntax));
        const fired = new Map<string, Set<string>>(); // mutant label → rules fired
        let engineError = '';
        if (typeof ms !== 'string') {
          for (const m of ms) {
            try {
              const mk = `${present.join(',')}:${createHash('sha1').update(m.xml).digest('hex')}`;
              let rules = memo.get(mk);
              if (!rules) {
                const r = present.length ? validate(m.xml, { packs: present, skipXsd: true }) : { findings: [] };
                rules = new Set(r.findings.map((x) => x.rule));
                memo.set(mk, rules);
              }
              fired.set(m.label, rules);
            } catch (e) { engineError = (e as Error).message; }
          }
        }
        for (const c of checks) {
          const base = { group: src.group, file, mutant: id, rule: c.rule, expect: c.expect, knownDivergence: src.knownDivergence };
          const key = `${file}#${n + 1}:${c.expect}:${c.rule}`;
          const pack = packForRule(c.rule);
          if (typeof ms === 'string' || engineError) {
            results.push({ ...base, key, agree: false, packMissing: false, reason: typeof ms === 'string' ? ms : `engine error: ${engineError}` });
          } else if (!reg.has(pack, syntax)) {
            results.push({ ...base, key, agree: false, packMissing: true, reason: `pack missing: ${pack} (${syntax})` });
          } else {
            const bad = [...fired].filter(([, rules]) => (c.expect === 'valid' ? rules.has(c.rule) : !rules.has(c.rule))).map(([l]) => l);
            results.push({
              ...base, key, agree: bad.length === 0, packMissing: false,
              reason: bad.length === 0 ? '' : `${c.rule} ${c.expect === 'valid' ? 'fired' : 'did not fire'} on ${bad.join(', ')}`,
            });
          }
        }
      });
    }
  }
  return results;
}

export function renderXmuteSection(results: MutantCheck[]): string[] {
  const lines: string[] = [];
  lines.push('## XML-Mutate cases (§3)');
  lines.push('');
  lines.push('Each `<?xmute?>` PI is one mutation of the original document; each referenced rule is one check. Rules are routed to');
  lines.push('packs by id (PEPPOL-* → peppol-bis, BR-DE/BR-DEX/BR-TMP → xrechnung, other → en16931). Not part of the 2,003 VEFA count.');
  lines.push('The `unexpected/` files state the *future* CEN behaviour: disagreements there are known divergences of today\'s CEN rules.');
  lines.push('');
  lines.push('| group | checks | agree | pack missing | disagree |');
  lines.push('|---|---|---|---|---|');
  const groups = [...new Set(results.map((r) => r.group))];
  for (const g of groups) {
    const rs = results.filter((r) => r.group === g);
    const ag = rs.filter((r) => r.agree).length; const pm = rs.filter((r) => r.packMissing).length;
    lines.push(`| ${g} | ${rs.length} | ${ag} | ${pm} | ${rs.length - ag - pm} |`);
  }
  lines.push('');
  const dis = results.filter((r) => !r.agree && !r.packMissing);
  lines.push(`Disagreements with a pack present (${dis.length}):`);
  lines.push('');
  for (const r of dis) lines.push(`- ${r.knownDivergence ? '(known CEN divergence) ' : ''}\`${r.file}\` mutant \`${r.mutant}\`: expected ${r.rule} ${r.expect}; ${r.reason}`);
  const pm = results.filter((r) => r.packMissing);
  const missingPacks = [...new Set(pm.map((r) => r.reason))];
  lines.push('');
  lines.push(`Pack missing (${pm.length} checks): ${missingPacks.join('; ') || 'none'}.`);
  lines.push('');
  return lines;
}
