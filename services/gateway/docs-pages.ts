/**
 * The human side of the API description: the reference page (Redoc, served from the installed
 * package, no CDN) and the error catalogue page whose anchors are the `docUrl` of every error.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ErrorCode } from '../shared/errors.ts';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_STYLE = 'body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}'
  + 'table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.4rem .6rem;text-align:left;vertical-align:top}'
  + 'code{font-size:.95em}tr:target{background:#fff6cc}h2{margin-top:2.5rem}';

/** Codes a failed document carries in `errorCode` (and `document.failed`), besides the network's own. */
export const DELIVERY_ERROR_CODES: Record<string, string> = {
  AP_REJECTED: 'The recipient\'s access point refused the message (permanent): the document is `failed`, lifecycle 213.',
  TRANSPORT_FAILURE: 'The transport failed on every attempt (the first send and 5 re-sends, each after a doubling delay): the document is `failed`.',
  SBDH_ERROR: 'The recipient\'s access point could not read the envelope (SBDH) of the message.',
  'EBMS:…, PPF and SDI codes': 'A network\'s own code, kept as it came (for example `EBMS:0004`), with its message in `errorMessage`.',
};

export function errorCataloguePage(table: Record<ErrorCode, { status: number; type: string; description: string }>): string {
  const rows = Object.entries(table).map(([code, e]) => `<tr id="${escape(code)}"><td><a href="#${escape(code)}"><code>${escape(code)}</code></a></td><td>${e.status}</td><td><code>${escape(e.type)}</code></td><td>${escape(e.description)}</td></tr>`);
  const delivery = Object.entries(DELIVERY_ERROR_CODES).map(([code, text]) => `<tr id="${escape(code)}"><td><code>${escape(code)}</code></td><td>${escape(text)}</td></tr>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title><meta name="viewport" content="width=device-width,initial-scale=1"><style>${PAGE_STYLE}</style></head><body>
<h1>Error codes</h1>
<p>Every error answers <code>{"error": {"type", "code", "message", "details", "requestId", "docUrl"}}</code>; <code>docUrl</code> links to the code's row below. The same table as JSON: <a href="/docs/errors.json">/docs/errors.json</a>. The API reference: <a href="/docs">/docs</a>.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>Type</th><th>Meaning</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<h2 id="delivery-errors">Delivery error codes</h2>
<p>A document whose delivery fails for good carries one of these in <code>errorCode</code>, and so does its <code>document.failed</code> event.</p>
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead><tbody>
${delivery.join('\n')}
</tbody></table>
</body></html>`;
}

export const REFERENCE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API reference</title><meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body><redoc spec-url="/v1/openapi.json" hide-download-button="false"></redoc><script src="/docs/redoc.standalone.js"></script></body></html>`;

let script: Buffer | undefined;

/** The Redoc standalone bundle of the installed package, read once. */
export function referenceScriptBytes(): Buffer {
  script ??= readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'));
  return script;
}
