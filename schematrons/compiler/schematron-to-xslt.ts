/**
 * A small ISO Schematron → XSLT 3.0 compiler for the subset our packs use (see schematrons/README.md).
 *
 * Supported: sch:schema (queryBinding xslt2/xslt3), sch:ns, sch:let (schema, pattern, rule; @value),
 * sch:pattern (concrete), sch:rule (@context; abstract rules + sch:extends), sch:assert and
 * sch:report (@id, @flag, @test, @diagnostics, @einv:bt), message content with text, sch:value-of,
 * sch:name, sch:emph/sch:dir/sch:span (text kept), sch:diagnostics/sch:diagnostic (the hint),
 * top-level xsl:key and xsl:function (copied through). Ignored: sch:title, sch:p, sch:phase.
 * Anything else is a compile error, so a pack never silently loses rules.
 *
 * The generated stylesheet walks the document ONCE (document node + every element, plus attributes
 * when some rule context can match an attribute) and applies ONE mode holding every rule; across
 * patterns xsl:next-match chains the matching rules so that the first matching rule of each
 * pattern fires (see the dispatch comment below). Each failed assert / successful report yields an
 * XDM map; the principal result is an array of those maps (CompiledFinding), which saxon-js returns
 * as plain objects with destination 'raw' (or JSON with destination 'serialized').
 */
import libxml from 'libxmljs2';
import type { Element, Node } from 'libxmljs2';

export const SCH_NS = 'http://purl.oclc.org/dsdl/schematron';
export const XSL_NS = 'http://www.w3.org/1999/XSL/Transform';
/** Our extension namespace for pack metadata on asserts (einv:bt). */
export const EINV_NS = 'urn:einvoicing-exchange:schematron';
/** Bump when the generated XSLT changes shape: part of the cache key. */
export const COMPILER_VERSION = '5';

/** Fields of each finding map emitted by a compiled pack. */
export interface CompiledFinding {
  /** rule id (the assert's @id) */
  id: string;
  /** 'fatal' | 'warning' (the assert's @flag; absent flag = 'fatal') */
  flag: string;
  /** 'assert' | 'report' */
  kind: string;
  /** XPath of the context node */
  location: string;
  /** plain-language message with computed values */
  text: string;
  /** how to fix it (diagnostics), may be empty */
  hint: string;
  /** space-separated BT/BG ids (einv:bt), may be empty */
  bt: string;
}

function xslFunction(f: Element): XslFunction {
  const params: XslFunction['params'] = [];
  const vars: Let[] = [];
  let select: string | null = null;
  let simple = true;
  for (const c of elementChildren(f)) {
    const kind = ns(c) === XSL_NS ? c.name() : '';
    if (kind === 'param' && !vars.length && select === null) params.push({ name: attr(c, 'name') ?? '', as: attr(c, 'as') ?? 'item()*' });
    else if (kind === 'variable' && select === null && attr(c, 'select') !== null && !attr(c, 'as')) vars.push({ name: attr(c, 'name') ?? '', value: attr(c, 'select')! });
    else if (kind === 'sequence' && select === null && attr(c, 'select') !== null) select = attr(c, 'select')!;
    else simple = false;
  }
  return { name: attr(f, 'name') ?? '', as: attr(f, 'as') ?? 'item()*', params, body: simple && select !== null ? { vars, select } : null };
}

export class SchematronCompileError extends Error {
  override name = 'SchematronCompileError';
}

interface RuleDef {
  context: string | null;
  abstractId: string | null;
  lets: Let[];
  checks: Check[];
  extendsIds: string[];
}
export interface Let { name: string; value: string }
interface Check { kind: 'assert' | 'report'; id: string; flag: string; test: string; message: string; hint: string; bt: string; parts: MessagePart[]; hintIds: string[] }
/** Message content as written: text, sch:value-of/@select, sch:name(/@path). */
export type MessagePart = { text: string } | { valueOf: string } | { name: string };

/** The parsed pack, for the JavaScript compiler (schematron-to-js.ts). Checks are numbered in
 * document order across the whole schema; the XSLT emits that number with each finding. */
/**
 * An xsl:function as the JavaScript compiler can take it: parameters, variables and one
 * xsl:sequence. `body` is null when the function holds anything else (it then stays on saxon-js).
 */
export interface XslFunction {
  name: string;
  as: string;
  params: { name: string; as: string }[];
  body: { vars: Let[]; select: string } | null;
}

/** An xsl:key: the nodes its pattern matches, indexed by the values of `use`. */
export interface XslKey { name: string; match: string; use: string }

export interface SchModel {
  ns: Map<string, string>;
  globalLets: Let[];
  functions: XslFunction[];
  keys: XslKey[];
  patterns: { id: string; rules: { context: string; lets: Let[]; checks: (Check & { index: number })[] }[] }[];
  diagnostics: Map<string, MessagePart[]>;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
const strLit = (s: string): string => `"${s.replace(/"/g, '""')}"`;

function elementChildren(el: Element): Element[] {
  return el.childNodes().filter((n): n is Element => n.type() === 'element') as Element[];
}
function ns(el: Node): string {
  const n = (el as Element).namespace();
  return n ? n.href() : '';
}
function attr(el: Element, name: string): string | null {
  const a = el.attr(name);
  return a ? a.value() : null;
}
function attrNs(el: Element, nsUri: string, local: string): string | null {
  for (const a of el.attrs()) {
    const an = a.namespace();
    if (a.name() === local && an && an.href() === nsUri) return a.value();
  }
  return null;
}

/**
 * Turn mixed message content (text, sch:value-of, sch:name, sch:emph …) into an XPath expression
 * that yields the normalized message string.
 */
function messageExpr(el: Element, where: string): string {
  const parts: string[] = [];
  for (const n of el.childNodes()) {
    const t = n.type() as string;
    if (t === 'text' || t === 'cdata') {
      parts.push(strLit((n as unknown as { text(): string }).text()));
    } else if (t === 'element') {
      const e = n as Element;
      if (ns(e) !== SCH_NS) throw new SchematronCompileError(`${where}: unsupported element <${e.name()}> in message`);
      switch (e.name()) {
        case 'value-of': {
          const sel = attr(e, 'select');
          if (!sel) throw new SchematronCompileError(`${where}: sch:value-of without @select`);
          parts.push(`string-join(for $einv_v in (${sel}) return string($einv_v), ' ')`);
          break;
        }
        case 'name': {
          const path = attr(e, 'path');
          parts.push(path ? `name(${path})` : 'name(.)');
          break;
        }
        case 'emph': case 'dir': case 'span':
          parts.push(messageExpr(e, where));
          break;
        default:
          throw new SchematronCompileError(`${where}: unsupported sch:${e.name()} in message`);
      }
    }
  }
  if (parts.length === 0) return '""';
  return `normalize-space(string-join((${parts.join(', ')}), ''))`;
}

function messageParts(el: Element): MessagePart[] {
  const parts: MessagePart[] = [];
  for (const n of el.childNodes()) {
    const t = n.type() as string;
    if (t === 'text' || t === 'cdata') parts.push({ text: (n as unknown as { text(): string }).text() });
    else if (t === 'element') {
      const e = n as Element;
      if (e.name() === 'value-of') parts.push({ valueOf: attr(e, 'select')! });
      else if (e.name() === 'name') parts.push({ name: attr(e, 'path') ?? '.' });
      else parts.push(...messageParts(e));
    }
  }
  return parts;
}

function parseLet(el: Element, where: string): Let {
  const name = attr(el, 'name');
  if (!name) throw new SchematronCompileError(`${where}: sch:let without @name`);
  const value = attr(el, 'value');
  if (value === null) throw new SchematronCompileError(`${where}: sch:let ${name} needs @value`);
  return { name, value };
}


export interface CompileResult {
  xslt: string;
  patterns: number;
  rules: number;
  checks: number;
  ruleIds: string[];
  model: SchModel;
}

/** Compile Schematron source text into XSLT 3.0 source text. */
export function compileSchematron(source: string, fileName = 'schema.sch', opts: { onlyChecks?: Set<number> } = {}): CompileResult {
  const doc = libxml.parseXml(source, { noent: false, nonet: true, dtdload: false });
  const root = doc.root();
  if (!root || root.name() !== 'schema' || ns(root) !== SCH_NS) {
    throw new SchematronCompileError(`${fileName}: root must be sch:schema`);
  }
  const qb = attr(root, 'queryBinding') ?? 'xslt2';
  if (!['xslt2', 'xslt3'].includes(qb)) throw new SchematronCompileError(`${fileName}: queryBinding ${qb} not supported`);

  const nsDecls = new Map<string, string>();
  const globalLets: Let[] = [];
  const xslTopLevel: string[] = [];
  const functions: XslFunction[] = [];
  const keys: XslKey[] = [];
  const diagnostics = new Map<string, string>();
  const diagParts = new Map<string, MessagePart[]>();
  const patterns: { id: string; rules: RuleDef[] }[] = [];
  const abstractRules = new Map<string, RuleDef>();

  const parseRule = (el: Element, where: string): RuleDef => {
    const rule: RuleDef = { context: attr(el, 'context'), abstractId: null, lets: [], checks: [], extendsIds: [] };
    if (attr(el, 'abstract') === 'true') {
      rule.abstractId = attr(el, 'id');
      if (!rule.abstractId) throw new SchematronCompileError(`${where}: abstract rule without @id`);
    } else if (!rule.context) {
      throw new SchematronCompileError(`${where}: rule without @context`);
    }
    for (const c of elementChildren(el)) {
      const cw = `${where}/${c.name()}`;
      if (ns(c) !== SCH_NS) throw new SchematronCompileError(`${cw}: foreign element in rule`);
      switch (c.name()) {
        case 'let': rule.lets.push(parseLet(c, cw)); break;
        case 'extends': {
          const r = attr(c, 'rule');
          if (!r) throw new SchematronCompileError(`${cw}: sch:extends needs @rule`);
          rule.extendsIds.push(r);
          break;
        }
        case 'assert': case 'report': {
          const id = attr(c, 'id');
          const test = attr(c, 'test');
          if (!id) throw new SchematronCompileError(`${cw}: every ${c.name()} needs @id (the official rule id)`);
          if (!test) throw new SchematronCompileError(`${cw} ${id}: missing @test`);
          const flag = attr(c, 'flag') ?? 'fatal';
          if (flag !== 'fatal' && flag !== 'warning') {
            throw new SchematronCompileError(`${cw} ${id}: @flag must be fatal or warning, got ${flag}`);
          }
          rule.checks.push({
            kind: c.name() as 'assert' | 'report', id, flag, test,
            message: messageExpr(c, `${cw} ${id}`),
            hint: attr(c, 'diagnostics') ?? '',
            bt: attrNs(c, EINV_NS, 'bt') ?? '',
            parts: messageParts(c),
            hintIds: (attr(c, 'diagnostics') ?? '').split(/\s+/).filter(Boolean),
          });
          break;
        }
        case 'title': case 'p': break;
        default: throw new SchematronCompileError(`${cw}: unsupported sch:${c.name()} in rule`);
      }
    }
    return rule;
  };

  for (const c of elementChildren(root)) {
    const where = `${fileName}: ${c.name()}`;
    if (ns(c) === XSL_NS) {
      if (c.name() !== 'key' && c.name() !== 'function') {
        throw new SchematronCompileError(`${where}: only xsl:key and xsl:function are allowed at top level`);
      }
      xslTopLevel.push(c.toString());
      if (c.name() === 'function') functions.push(xslFunction(c));
      else keys.push({ name: attr(c, 'name') ?? '', match: attr(c, 'match') ?? '', use: attr(c, 'use') ?? '' });
      continue;
    }
    if (ns(c) !== SCH_NS) throw new SchematronCompileError(`${where}: foreign element`);
    switch (c.name()) {
      case 'ns': {
        const p = attr(c, 'prefix'); const u = attr(c, 'uri');
        if (!p || u === null) throw new SchematronCompileError(`${where}: sch:ns needs @prefix and @uri`);
        nsDecls.set(p, u);
        break;
      }
      case 'let': globalLets.push(parseLet(c, where)); break;
      case 'pattern': {
        if (attr(c, 'abstract') === 'true' || attr(c, 'is-a')) {
          throw new SchematronCompileError(`${where}: abstract patterns are not supported`);
        }
        const pid = attr(c, 'id') ?? `pattern-${patterns.length + 1}`;
        const rules: RuleDef[] = [];
        const pLets: Let[] = [];
        for (const r of elementChildren(c)) {
          const rw = `${where} ${pid}/${r.name()}`;
          if (ns(r) !== SCH_NS) throw new SchematronCompileError(`${rw}: foreign element in pattern`);
          if (r.name() === 'rule') {
            const rd = parseRule(r, `${rw}[${rules.length + 1}]`);
            if (rd.abstractId) abstractRules.set(rd.abstractId, rd); else rules.push(rd);
          } else if (r.name() === 'let') pLets.push(parseLet(r, rw));
          else if (r.name() === 'title' || r.name() === 'p') continue;
          else throw new SchematronCompileError(`${rw}: unsupported in pattern`);
        }
        // pattern-level lets are evaluated per rule context (as Schematron does for non-global lets)
        for (const rd of rules) rd.lets.unshift(...pLets);
        patterns.push({ id: pid, rules });
        break;
      }
      case 'diagnostics':
        for (const d of elementChildren(c)) {
          const id = attr(d, 'id');
          if (d.name() !== 'diagnostic' || !id) throw new SchematronCompileError(`${where}: expected sch:diagnostic with @id`);
          diagnostics.set(id, messageExpr(d, `${where} ${id}`));
          diagParts.set(id, messageParts(d));
        }
        break;
      case 'title': case 'p': case 'phase': break;
      default: throw new SchematronCompileError(`${where}: unsupported sch:${c.name()}`);
    }
  }

  // resolve extends (abstract rules) and diagnostics references
  const resolve = (rd: RuleDef, seen: Set<string>): void => {
    for (const e of rd.extendsIds) {
      const a = abstractRules.get(e);
      if (!a) throw new SchematronCompileError(`${fileName}: sch:extends refers to unknown abstract rule ${e}`);
      if (seen.has(e)) throw new SchematronCompileError(`${fileName}: cyclic sch:extends ${e}`);
      resolve(a, new Set([...seen, e]));
      rd.lets.push(...a.lets);
      rd.checks.push(...a.checks);
    }
    rd.extendsIds = [];
  };
  let nRules = 0; let nChecks = 0;
  const ruleIds = new Set<string>();
  const checkIndex = new Map<Check, number>();
  for (const p of patterns) for (const r of p.rules) {
    resolve(r, new Set());
    nRules++;
    r.checks = r.checks.map((ch) => ({ ...ch })); // an abstract rule's checks are numbered per use
    for (const ch of r.checks) {
      checkIndex.set(ch, nChecks);
      nChecks++;
      ruleIds.add(ch.id);
      if (ch.hint) {
        const exprs = ch.hint.split(/\s+/).filter(Boolean).map((id) => {
          const d = diagnostics.get(id);
          if (!d) throw new SchematronCompileError(`${fileName}: ${ch.id} refers to unknown diagnostic ${id}`);
          return d;
        });
        ch.hint = exprs.length === 1 ? exprs[0]! : `string-join((${exprs.join(', ')}), ' ')`;
      } else ch.hint = '""';
    }
  }

  // Does any rule context end in an attribute step? Then the walk also visits attributes.
  const needsAttributes = patterns.some((p) => p.rules.some((r) => /@[\w*:-]+(\[[^\]]*\])*\s*$|attribute::/.test(r.context ?? '')));

  const reserved = new Set(['xsl', 'xs', 'map', 'array', 'einv', 'fn', 'math']);
  const nsAttrs: string[] = [];
  for (const [p, u] of nsDecls) {
    if (reserved.has(p)) throw new SchematronCompileError(`${fileName}: prefix ${p} is reserved`);
    nsAttrs.push(`xmlns:${p}="${esc(u)}"`);
  }
  const prefixMap = `map{${[...nsDecls].map(([p, u]) => `${strLit(u)}: ${strLit(p)}`).join(', ')}}`;

  const out: string[] = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(`<!-- Generated from ${esc(fileName)} by schematrons/compiler (v${COMPILER_VERSION}). Do not edit. -->`);
  out.push(`<xsl:stylesheet version="3.0" xmlns:xsl="${XSL_NS}" xmlns:xs="http://www.w3.org/2001/XMLSchema" ` +
    `xmlns:map="http://www.w3.org/2005/xpath-functions/map" xmlns:array="http://www.w3.org/2005/xpath-functions/array" ` +
    `xmlns:math="http://www.w3.org/2005/xpath-functions/math" ` +
    `xmlns:einv="${EINV_NS}" ${nsAttrs.join(' ')} exclude-result-prefixes="#all">`);
  out.push('<xsl:output method="json" indent="no"/>');
  out.push(`<xsl:variable name="einv:prefixes" select="${esc(prefixMap)}"/>`);
  for (const x of xslTopLevel) out.push(x);
  for (const l of globalLets) out.push(`<xsl:variable name="${esc(l.name)}" select="${esc(l.value)}"/>`);
  out.push(`<xsl:function name="einv:step" as="xs:string">
  <xsl:param name="n" as="node()"/>
  <xsl:sequence select="if ($n instance of attribute()) then concat('/@', name($n))
    else let $p := map:get($einv:prefixes, namespace-uri($n)),
             $q := if (namespace-uri($n) eq '') then local-name($n) else if (exists($p)) then concat($p, ':', local-name($n)) else concat('*:', local-name($n))
         return concat('/', $q, '[', count($n/preceding-sibling::*[node-name(.) eq node-name($n)]) + 1, ']')"/>
</xsl:function>
<xsl:function name="einv:path" as="xs:string">
  <xsl:param name="n" as="node()"/>
  <xsl:sequence select="if ($n instance of document-node()) then '/' else string-join(for $a in $n/ancestor-or-self::node()[not(. instance of document-node())] return einv:step($a), '')"/>
</xsl:function>`);

  const checkLines = (r: RuleDef): string[] => {
    const o: string[] = [];
    for (const l of r.lets) o.push(`  <xsl:variable name="${esc(l.name)}" select="${esc(l.value)}"/>`);
    for (const ch of r.checks) {
      // a stylesheet for the JavaScript engine's fallback checks carries only those
      if (opts.onlyChecks && !opts.onlyChecks.has(checkIndex.get(ch)!)) continue;
      const cond = ch.kind === 'assert' ? `not(${ch.test})` : `(${ch.test})`;
      o.push(`  <xsl:if test="${esc(cond)}">`);
      o.push(`    <xsl:sequence select="${esc(`map{'id': ${strLit(ch.id)}, 'flag': ${strLit(ch.flag)}, 'kind': ${strLit(ch.kind)}, ` +
        `'location': einv:path(.), 'check': ${checkIndex.get(ch)}, 'text': ${ch.message}, 'hint': ${ch.hint}, 'bt': ${strLit(ch.bt)}}`)}"/>`);
      o.push('  </xsl:if>');
    }
    return o;
  };
  const fullWalk = needsAttributes ? '(., descendant::*, descendant::*/@*)' : '(., descendant::*)';
  // Dispatch: ONE walk over the document and ONE mode holding every rule of every pattern, in
  // source order (descending priorities; saxon-js indexes template rules by node name, so a node
  // is only tried against rules that can match it). A node may match rules of several patterns:
  // each template runs its checks only if its pattern has not fired yet on this node (tunnel
  // parameter einv:done), then passes on with xsl:next-match, so exactly the first matching rule
  // of every pattern fires, as Schematron requires.
  out.push('<xsl:mode name="einv:all" on-no-match="deep-skip"/>');
  out.push('<xsl:template match="document-node()" mode="einv:all" priority="-1000000"/>');
  const total = patterns.reduce((a, p) => a + p.rules.length, 0);
  let g = 0;
  patterns.forEach((p, pi) => {
    out.push(`<!-- pattern ${esc(p.id)} -->`);
    p.rules.forEach((r) => {
      out.push(`<xsl:template match="${esc(r.context!)}" mode="einv:all" priority="${total - g}">`);
      g++;
      out.push('  <xsl:param name="einv:done" as="xs:integer*" select="()" tunnel="yes"/>');
      out.push('  <xsl:choose>');
      out.push(`  <xsl:when test="$einv:done = ${pi}"><xsl:next-match/></xsl:when>`);
      out.push('  <xsl:otherwise>');
      out.push(...checkLines(r));
      out.push(`  <xsl:next-match><xsl:with-param name="einv:done" select="($einv:done, ${pi})" tunnel="yes"/></xsl:next-match>`);
      out.push('  </xsl:otherwise>');
      out.push('  </xsl:choose>');
      out.push('</xsl:template>');
    });
  });
  out.push(`<xsl:template match="/" mode="#unnamed">
  <xsl:variable name="einv:found" as="map(*)*">
  <xsl:apply-templates select="${esc(fullWalk)}" mode="einv:all"/>
  </xsl:variable>
  <xsl:sequence select="array{$einv:found}"/>
</xsl:template>`);
  out.push('</xsl:stylesheet>');
  const model: SchModel = {
    ns: nsDecls, globalLets, functions, keys, diagnostics: diagParts,
    patterns: patterns.map((p) => ({ id: p.id, rules: p.rules.map((r) => ({ context: r.context!, lets: r.lets, checks: r.checks.map((ch) => ({ ...ch, index: checkIndex.get(ch)! })) })) })),
  };
  return { xslt: out.join('\n'), patterns: patterns.length, rules: nRules, checks: nChecks, ruleIds: [...ruleIds].sort(), model };
}
