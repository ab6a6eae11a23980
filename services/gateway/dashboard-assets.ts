/**
 * The web dashboard's static files at `/app`: what `node app/build.ts` bundled from app/ into
 * app/dist (index.html plus content-hashed scripts and styles; no CDN at run time).
 *
 * Caching: the page is `no-cache` (revalidated each time, so a new build is picked up at once); the
 * hashed files never change under their name, so they are cached for a year as immutable.
 * Content-Security-Policy: scripts, styles, fonts and API calls from this origin only, no inline
 * script or eval; `blob:` frames and images for the document preview the page fetches with its
 * session token and shows in a sandboxed frame; nobody may frame the dashboard itself.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PREVIEW_STYLE_SOURCE } from '../../mappings/index.ts';

/** Where app/build.ts writes the bundle. */
export const DASHBOARD_DIST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'app', 'dist');

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The document preview's style sheet, by its hash: a blob: frame takes this page's policy.
  `style-src 'self' ${PREVIEW_STYLE_SOURCE}`,
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** A bundled file's name: no directories, no dot files, a known type (nothing else under app/dist is served). */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9]+(\.map)?$/;

interface Cached { bytes: Buffer; mtimeMs: number }

export function dashboardHandler(dist: string = DASHBOARD_DIST) {
  const cache = new Map<string, Cached>();
  /** The file's bytes, re-read when a rebuild changed it (an `npm start` left running while developing). */
  function read(name: string): Buffer | undefined {
    const path = join(dist, name);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
    const hit = cache.get(name);
    if (hit && hit.mtimeMs === mtimeMs) return hit.bytes;
    const bytes = readFileSync(path);
    if (cache.size > 200) cache.clear();
    cache.set(name, { bytes, mtimeMs });
    return bytes;
  }

  return function serve(req: IncomingMessage & { $params?: Record<string, unknown> }, res: ServerResponse): void {
    const file = typeof req.$params?.file === 'string' ? req.$params.file : undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('method not allowed');
      return;
    }
    if (!file) {
      const page = read('index.html');
      if (!page) {
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('The dashboard is not built: run `node app/build.ts` (npm run build:app).');
        return;
      }
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : page);
      return;
    }
    const type = TYPES[file.slice(file.lastIndexOf('.'))];
    const bytes = ASSET_NAME.test(file) && type ? read(file) : undefined;
    if (!bytes) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': type!, 'Cache-Control': 'public, max-age=31536000, immutable' });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };
}
