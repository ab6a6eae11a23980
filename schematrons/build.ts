/**
 * Build every Schematron pack once: .sch → XSLT 3.0 (our compiler) → SEF (xslt3, saxon-js).
 *
 *   node schematrons/build.ts            compile what changed (fast no-op when the cache is fresh)
 *   node schematrons/build.ts --force    recompile everything
 *
 * Output: schematrons/.cache/<pack>/<version>/<file>.<hash>.sef.json (+ the generated .xsl next to it
 * for debugging) and schematrons/.cache/manifest.json. The hash covers the .sch source, the compiler
 * version and the compiler source, so a stale cache rebuilds itself.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, renameSync, statSync } from 'node:fs';
import { join, basename, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { compileSchematron, COMPILER_VERSION } from './compiler/schematron-to-xslt.ts';
import { compileSchematronToJs } from './compiler/schematron-to-js.ts';
import { CACHE_DIR, MANIFEST_PATH, SCHEMATRONS_DIR, discoverPacks, type CacheManifest, type CompiledPackFile, type Syntax } from './packs.ts';

const require = createRequire(import.meta.url);

function xslt3Cli(): string {
  return require.resolve('xslt3/xslt3.js');
}

/** XSLT 3.0 source → SEF (written atomically: readers never see half a file). */
function xslt3(xslPath: string, sefPath: string): void {
  const tmp = `${sefPath}.tmp-${process.pid}`;
  try {
    execFileSync(process.execPath, [xslt3Cli(), `-xsl:${xslPath}`, `-export:${tmp}`, '-nogo', '-relocate:on'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const err = e as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(`xslt3 failed on ${xslPath}:\n${err.stderr?.toString() ?? ''}${err.stdout?.toString() ?? ''}`);
  }
  renameSync(tmp, sefPath);
}

export interface BuildOptions { force?: boolean; log?: (msg: string) => void }

export function buildPacks(opts: BuildOptions = {}): CacheManifest {
  const log = opts.log ?? ((m: string) => process.stdout.write(`${m}\n`));
  const compilerSrc = ['schematron-to-xslt.ts', 'schematron-to-js.ts', 'xpath.ts']
    .map((f) => readFileSync(join(SCHEMATRONS_DIR, 'compiler', f), 'utf8')).join('\0');
  const packs = discoverPacks();
  const files: CompiledPackFile[] = [];
  let built = 0;
  const keep = new Set<string>();
  for (const pack of packs) {
    for (const [syntax, file] of Object.entries(pack.files) as [Syntax, string][]) {
      const srcPath = join(pack.dir, file);
      const src = readFileSync(srcPath, 'utf8');
      const hash = createHash('sha256').update(COMPILER_VERSION).update('\0').update(compilerSrc).update('\0').update(src)
        .digest('hex').slice(0, 16);
      const outDir = join(CACHE_DIR, pack.id, pack.version);
      const stem = `${basename(file, '.sch')}.${hash}`;
      const sefPath = join(outDir, `${stem}.sef.json`);
      const metaPath = join(outDir, `${stem}.meta.json`);
      const jsPath = join(outDir, `${stem}.rules.mjs`);
      const fallbackSefPath = join(outDir, `${stem}.fallback.sef.json`);
      keep.add(sefPath); keep.add(metaPath); keep.add(join(outDir, `${stem}.xsl`)); keep.add(jsPath);
      keep.add(fallbackSefPath); keep.add(join(outDir, `${stem}.fallback.xsl`));
      let meta: { ruleIds: string[]; checks: number; compiledChecks: number; fallbackChecks: number };
      if (!opts.force && existsSync(sefPath) && existsSync(metaPath) && existsSync(jsPath) && existsSync(fallbackSefPath)) {
        meta = JSON.parse(readFileSync(metaPath, 'utf8')) as typeof meta;
      } else {
        const t0 = performance.now();
        mkdirSync(outDir, { recursive: true });
        const res = compileSchematron(src, relative(SCHEMATRONS_DIR, srcPath));
        const xslPath = join(outDir, `${stem}.xsl`);
        writeFileSync(xslPath, res.xslt);
        xslt3(xslPath, sefPath);
        // the same parsed pack as JavaScript; checks outside the compiled XPath subset stay on saxon-js,
        // in a stylesheet of their own (the same rules, only those checks)
        const js = compileSchematronToJs(res.model, relative(SCHEMATRONS_DIR, srcPath));
        const fbXsl = join(outDir, `${stem}.fallback.xsl`);
        writeFileSync(fbXsl, compileSchematron(src, relative(SCHEMATRONS_DIR, srcPath), { onlyChecks: new Set(js.fallbackChecks) }).xslt);
        xslt3(fbXsl, fallbackSefPath);
        writeFileSync(`${jsPath}.tmp-${process.pid}`, js.source);
        renameSync(`${jsPath}.tmp-${process.pid}`, jsPath);
        meta = { ruleIds: res.ruleIds, checks: res.checks, compiledChecks: js.compiled, fallbackChecks: js.fallback };
        writeFileSync(`${metaPath}.tmp-${process.pid}`, JSON.stringify(meta));
        renameSync(`${metaPath}.tmp-${process.pid}`, metaPath);
        built++;
        log(`compiled ${pack.id}/${pack.version}/${file}: ${res.patterns} patterns, ${res.rules} rules, ${res.checks} checks, ` +
          `${res.ruleIds.length} rule ids in ${Math.round(performance.now() - t0)} ms`);
      }
      log(`  ${pack.id}/${file}: ${meta.compiledChecks} checks compiled to JavaScript, ${meta.fallbackChecks} on saxon-js (fallback)`);
      files.push({
        pack: pack.id, version: pack.version, syntax, title: pack.title, select: pack.select, order: pack.order ?? 100,
        sef: relative(CACHE_DIR, sefPath), hash, ruleIds: meta.ruleIds, checks: meta.checks,
        js: relative(CACHE_DIR, jsPath), fallbackSef: relative(CACHE_DIR, fallbackSefPath), compiledChecks: meta.compiledChecks, fallbackChecks: meta.fallbackChecks,
      });
    }
  }
  // drop stale outputs (several processes may build at once: a file can vanish under us)
  if (existsSync(CACHE_DIR)) {
    for (const p of readdirSync(CACHE_DIR, { recursive: true, withFileTypes: true })) {
      if (!p.isFile()) continue;
      const full = join(p.parentPath, p.name);
      if (full === MANIFEST_PATH || keep.has(full)) continue;
      try {
        if (full.endsWith('.stale')) {
          if (!existsSync(full.slice(0, -'.stale'.length))) rmSync(full, { force: true });
          continue;
        }
        // another process (a test run, a server) may still be loading a SEF it read from the previous
        // manifest: mark stale outputs first, remove them once they have been stale for 10 minutes
        const marker = `${full}.stale`;
        if (!existsSync(marker)) writeFileSync(marker, '');
        else if (Date.now() - statSync(marker).mtimeMs > 10 * 60 * 1000) { rmSync(full, { force: true }); rmSync(marker, { force: true }); }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
  const manifest: CacheManifest = { compilerVersion: COMPILER_VERSION, files };
  mkdirSync(CACHE_DIR, { recursive: true });
  const text = JSON.stringify(manifest, null, 1);
  if (!existsSync(MANIFEST_PATH) || readFileSync(MANIFEST_PATH, 'utf8') !== text) {
    const tmp = `${MANIFEST_PATH}.tmp-${process.pid}`; // atomic: a reader never sees half a manifest
    writeFileSync(tmp, text);
    renameSync(tmp, MANIFEST_PATH);
  }
  log(`schematrons: ${files.length} pack file(s), ${built} compiled, ${files.length - built} cached`);
  return manifest;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    buildPacks({ force: process.argv.includes('--force') });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(1);
  }
}
