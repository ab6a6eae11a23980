/**
 * Schematron → JavaScript: the same parsed pack the XSLT compiler reads (SchModel), turned into an
 * ES module of plain functions over the validation engine's indexed tree
 * (services/validation/engine/compiled/runtime.ts). Every check whose test, message and hint fall
 * inside the XPath subset of ./xpath.ts is compiled; the others are listed as fallback checks and
 * the engine takes their findings from the saxon-js run of the same pack (matched by check number).
 *
 * A rule whose context is not compiled makes its own checks and those of the later rules of its
 * pattern fallback too (which node a later rule sees depends on the earlier rules' matches).
 */
import { ATOMIC_TYPES, compileContext, jsVar, compileExpr, UnsupportedXPath, type CompileEnv } from './xpath.ts';
import type { MessagePart, SchModel, XslFunction, XslKey } from './schematron-to-xslt.ts';

export interface JsCompileResult { source: string; compiled: number; fallback: number; fallbackChecks: number[] }

const J = JSON.stringify;

function tryCompile(src: string, env: CompileEnv): string | null {
  try {
    return compileExpr(src, env);
  } catch (e) {
    if (e instanceof UnsupportedXPath) return null;
    throw e;
  }
}

function messageFn(parts: MessagePart[], env: CompileEnv): string | null {
  const out: string[] = [];
  for (const p of parts) {
    const src = Object.hasOwn(p, 'text') ? null : Object.hasOwn(p, 'valueOf') ? (p as { valueOf: string }).valueOf : `name(${(p as { name: string }).name})`;
    if (src === null) { out.push(J((p as { text: string }).text)); continue; }
    const e = tryCompile(src, env);
    if (e === null) return null;
    out.push(`rt.joinValues(${e})`);
  }
  return `(c, v) => rt.normalize(${out.length ? out.join(' + ') : '""'})`;
}

/**
 * The variables of the document (global lets) or of a rule's context node, as a class: one getter
 * per variable computes it on first use (XSLT evaluates a variable only when used, so an unused
 * let never errors) and keeps it in its slot. `#c` is the context node, `#g` the document's
 * variables (the generated code reads globals as v["#g"][name], a rule's own as v[name]).
 */
function scopeClass(className: string, letsArray: string, names: string[], global: boolean): string[] {
  const slot = (n: string) => J(`$${n}`);
  return [
    `  class ${className} {`,
    `    constructor(${global ? 'c' : 'g, c'}) { this["#c"] = c; this["#g"] = ${global ? 'this' : 'g'};${names.map((n) => ` this[${slot(n)}] = undefined;`).join('')} }`,
    ...names.map((n, i) => `    get ${J(n)}() { let r = this[${slot(n)}]; if (r === undefined) r = this[${slot(n)}] = ${letsArray}[${i}][1](this["#c"], this); return r; }`),
    '  }',
  ];
}

/** `xs:decimal?` → its item type, occurrence and whether it is atomic; null when the runtime cannot convert to it. */
function sequenceType(as: string): [string, string, boolean] | null {
  const m = /^(.*?)([?*+]?)$/.exec(as.trim())!;
  const item = m[1]!.trim();
  if (item.startsWith('xs:')) return ATOMIC_TYPES.has(item) || item === 'xs:anyAtomicType' ? [item, m[2]!, true] : null;
  return /^(item|node|element|attribute|document-node)\(\)$/.test(item) ? [item, m[2]!, false] : null;
}

const conversion = (value: string, t: [string, string, boolean]): string =>
  t[0] === 'item()' && t[1] === '*' ? value : `rt.convert(${value}, ${J(t[0])}, ${J(t[1])}, ${t[2]})`;

/** The pack's xsl:keys, as the candidates' names, a match predicate and the `use` expression. */
function compileKeys(keys: XslKey[], env: CompileEnv, lines: string[]): void {
  env.keys = new Map();
  keys.forEach((key, i) => {
    try {
      const ctx = compileContext(key.match, env);
      if (ctx.attribute) return;
      const use = compileExpr(key.use, env);
      lines.push(`  const K${i} = { names: ${J(ctx.names)}, match: ${ctx.match}, use: (c, v) => ${use} };`);
      env.keys!.set(key.name, `K${i}`);
    } catch (e) {
      if (!(e instanceof UnsupportedXPath)) throw e;
    }
  });
}

/**
 * The pack's xsl:functions that are one xsl:sequence over parameters and variables, as JavaScript
 * functions taking the caller's variables first (global lets are visible in XSLT functions).
 * Functions calling others are compiled once their callees are; the rest stay on saxon-js.
 */
function compileFunctions(fns: XslFunction[], env: CompileEnv, lines: string[]): void {
  const functions = new Map<string, string>();
  env.functions = functions;
  let progress = true;
  const pending = fns.filter((f) => f.body !== null);
  while (progress) {
    progress = false;
    for (const f of [...pending]) {
      const key = `${f.name}#${f.params.length}`;
      const result = sequenceType(f.as);
      const params = f.params.map((p) => sequenceType(p.as));
      if (!result || params.some((p) => p === null)) { pending.splice(pending.indexOf(f), 1); continue; }
      const jsName = `F_${f.name.replace(/[^\w]/g, '_')}_${f.params.length}`;
      const locals = f.params.map((p) => p.name);
      // no context item inside a function: a step there is a dynamic error, as in XSLT
      const body: string[] = ['    const c = undefined, p = 0, z = 0;'];
      try {
        f.params.forEach((p, i) => {
          const conv = conversion(jsVar(p.name), params[i]!);
          if (conv !== jsVar(p.name)) body.push(`    ${jsVar(p.name)} = ${conv};`);
        });
        for (const va of f.body!.vars) {
          body.push(`    const ${jsVar(va.name)} = ${compileExpr(va.value, { ...env, locals: [...locals] })};`);
          locals.push(va.name);
        }
        body.push(`    return ${conversion(compileExpr(f.body!.select, { ...env, locals: [...locals] }), result)};`);
      } catch (e) {
        if (!(e instanceof UnsupportedXPath)) throw e;
        continue; // perhaps a callee is not compiled yet: tried again on the next round
      }
      lines.push(`  function ${jsName}(v, ${f.params.map((p) => jsVar(p.name)).join(', ')}) {`, ...body, '  }');
      functions.set(key, jsName);
      pending.splice(pending.indexOf(f), 1);
      progress = true;
    }
  }
}

export function compileSchematronToJs(model: SchModel, fileName: string): JsCompileResult {
  const env: CompileEnv = { ns: model.ns, vars: new Set() };
  const lines: string[] = [];
  const fallbackChecks: number[] = [];
  let compiled = 0;
  const prefixes: Record<string, string> = {};
  for (const [p, u] of model.ns) prefixes[u] = p;
  lines.push(`// Generated from ${fileName} by schematrons/compiler/schematron-to-js.ts. Do not edit.`);
  lines.push('export function build(rt) {');
  lines.push(`  const prefixes = ${J(prefixes)};`);
  env.consts = new Map();
  const constsAt = lines.length;
  compileKeys(model.keys, env, lines);
  compileFunctions(model.functions, env, lines);
  lines.push('  const globals = [');
  const globalNames: string[] = [];
  for (const l of model.globalLets) {
    const e = tryCompile(l.value, env);
    if (e === null) continue;
    env.vars.add(l.name);
    globalNames.push(l.name);
    lines.push(`    [${J(l.name)}, (c, v) => ${e}],`);
  }
  lines.push('  ];');
  lines.push(...scopeClass('Globals', 'globals', globalNames, true));
  const patternsAt = lines.length;
  const scopes: string[] = [];
  lines.push('  const patterns = [');
  const checkPattern: number[] = [];
  const uncompiled: number[] = [];
  model.patterns.forEach((p, pi) => {
    lines.push(`    { id: ${J(p.id)}, rules: [`);
    let broken = false;
    for (const r of p.rules) {
      for (const ch of r.checks) checkPattern[ch.index] = pi;
      let ctx: ReturnType<typeof compileContext> | null = null;
      if (!broken) {
        try { ctx = compileContext(r.context, env); } catch (e) { if (!(e instanceof UnsupportedXPath)) throw e; }
      }
      if (!ctx) {
        broken = true;
        for (const ch of r.checks) { fallbackChecks.push(ch.index); uncompiled.push(ch.index); }
        continue;
      }
      const renv: CompileEnv = { ...env, vars: new Set(env.vars), ruleVars: new Set() };
      const lets: string[] = [];
      const letNames: string[] = [];
      for (const l of r.lets) {
        const e = tryCompile(l.value, renv);
        if (e === null) { renv.vars.delete(l.name); renv.ruleVars!.delete(l.name); continue; }
        renv.vars.add(l.name);
        renv.ruleVars!.add(l.name);
        letNames.push(l.name);
        lets.push(`[${J(l.name)}, (c, v) => ${e}]`);
      }
      const ruleNo = scopes.length;
      if (letNames.length) scopes.push(`  const RL${ruleNo} = [${lets.join(', ')}];`, ...scopeClass(`R${ruleNo}`, `RL${ruleNo}`, letNames, false));
      else scopes.push('');
      const checks: string[] = [];
      const ruleFallback: number[] = [];
      for (const ch of r.checks) {
        const test = tryCompile(ch.test, renv);
        const msg = messageFn(ch.parts, renv);
        let hint: string | null = '(c, v) => ""';
        if (ch.hintIds.length) {
          const hs = ch.hintIds.map((id) => messageFn(model.diagnostics.get(id) ?? [], renv));
          hint = hs.some((h) => h === null) ? null : `(c, v) => [${hs.map((h) => `(${h})(c, v)`).join(', ')}].join(' ')`;
        }
        if (test === null || msg === null || hint === null) { fallbackChecks.push(ch.index); ruleFallback.push(ch.index); continue; }
        compiled++;
        checks.push(`        { index: ${ch.index}, id: ${J(ch.id)}, flag: ${J(ch.flag)}, report: ${ch.kind === 'report'}, bt: ${J(ch.bt)},\n` +
          `          test: (c, v) => ${test},\n          message: ${msg},\n          hint: ${hint} },`);
      }
      lines.push(`      { context: ${J(r.context)}, names: ${J(ctx.names)}, attribute: ${ctx.attribute}, match: ${ctx.match},`);
      lines.push(`        lets: ${letNames.length ? `RL${ruleNo}` : '[]'}, scope: ${letNames.length ? `(g, c) => new R${ruleNo}(g, c)` : 'null'}, fallback: ${J(ruleFallback)},`);
      lines.push('        checks: [');
      lines.push(...checks);
      lines.push('      ] },');
    }
    lines.push('    ] },');
  });
  lines.push('  ];');
  lines.splice(patternsAt, 0, ...scopes.filter((x) => x !== ''));
  lines.splice(constsAt, 0, ...[...env.consts].map(([code, name]) => `  const ${name} = ${code};`));
  lines.push(`  return { prefixes, globals, globalScope: (doc) => new Globals(doc), patterns, checkPattern: ${J(checkPattern)}, fallbackChecks: ${J(fallbackChecks)}, uncompiled: ${J(uncompiled)} };`);
  lines.push('}');
  return { source: `${lines.join('\n')}\n`, compiled, fallback: fallbackChecks.length, fallbackChecks };
}
