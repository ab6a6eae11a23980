/**
 * Builds the web dashboard: app/src (Preact + Chart.js, TSX) bundled by esbuild into app/dist,
 * which the gateway serves at /app (services/gateway/dashboard-assets.ts). Runs from setup, before
 * `npm test` (pretest) and before `npm start` (prestart), so what is served is always this checkout's.
 *
 * Output: index.html plus content-hashed `main-<hash>.js` / `.css`; the page names them, so the
 * hashed files can be cached as immutable and a new build is picked up by reloading the page.
 * Everything the page needs is in the bundle: no CDN, no inline script (the CSP forbids it).
 */
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'app', 'dist');

export async function buildDashboard(options: { minify?: boolean } = {}): Promise<{ script: string; style: string }> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: { main: join(root, 'app', 'src', 'main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: options.minify ?? true,
    sourcemap: 'linked',
    entryNames: '[name]-[hash]',
    outdir,
    metafile: true,
    legalComments: 'eof',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const script = outputs.find((f) => /^main-.*\.js$/.test(f));
  const style = outputs.find((f) => /^main-.*\.css$/.test(f));
  if (!script || !style) throw new Error(`build-app: esbuild wrote no main script or style (${outputs.join(', ')})`);
  writeFileSync(join(outdir, 'index.html'), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>E-invoicing exchange · dashboard</title>
<link rel="stylesheet" href="/app/${style}">
<script type="module" src="/app/${script}"></script>
</head>
<body><div id="root"><noscript>The dashboard needs JavaScript.</noscript></div></body>
</html>
`);
  return { script, style };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const { script } = await buildDashboard();
  console.log(`build-app: app/dist/${script} in ${Math.round(performance.now() - started)} ms`);
}
