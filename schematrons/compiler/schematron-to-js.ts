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
import { compileContext, compileExpr, UnsupportedXPath, type CompileEnv } from './xpath.ts';
import type { MessagePart, SchModel } from './schematron-to-xslt.ts';

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
    if ('text' in p) out.push(J(p.text));
    else if ('valueOf' in p) {
      const e = tryCompile((p as { valueOf: string }).valueOf, env);
      if (e === null) return null;
      out.push(`rt.joinValues(${e})`);
    } else return null; // sch:name: the document's own prefixes are not kept in the tree
  }
  return `(c, v) => rt.normalize(${out.length ? out.join(' + ') : '""'})`;
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
  lines.push('  const globals = [');
  for (const l of model.globalLets) {
    const e = tryCompile(l.value, env);
    if (e === null) continue;
    env.vars.add(l.name);
    lines.push(`    [${J(l.name)}, (c, v) => ${e}],`);
  }
  lines.push('  ];');
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
      const renv: CompileEnv = { ns: env.ns, vars: new Set(env.vars) };
      const lets: string[] = [];
      for (const l of r.lets) {
        const e = tryCompile(l.value, renv);
        if (e === null) { renv.vars.delete(l.name); continue; }
        renv.vars.add(l.name);
        lets.push(`[${J(l.name)}, (c, v) => ${e}]`);
      }
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
      lines.push(`        lets: [${lets.join(', ')}], fallback: ${J(ruleFallback)},`);
      lines.push('        checks: [');
      lines.push(...checks);
      lines.push('      ] },');
    }
    lines.push('    ] },');
  });
  lines.push('  ];');
  lines.push(`  return { prefixes, globals, patterns, checkPattern: ${J(checkPattern)}, fallbackChecks: ${J(fallbackChecks)}, uncompiled: ${J(uncompiled)} };`);
  lines.push('}');
  return { source: `${lines.join('\n')}\n`, compiled, fallback: fallbackChecks.length, fallbackChecks };
}
