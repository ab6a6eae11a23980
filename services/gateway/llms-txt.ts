/**
 * /llms.txt (the llms.txt convention: one Markdown page an AI agent reads first), written from the
 * same contracts the gateway routes and the OpenAPI document come from, and from the MCP tool list:
 * an operation added to a contract appears here with its scope, nothing is kept by hand. Pure.
 */
import type { ActionContract } from '../shared/contract.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../shared/contract.ts';
import { HANDOFF_SCOPES, AGENT_GRANT_SECONDS } from '../identity/agent-access.contract.ts';
import { MCP_TOOLS, scopesOf } from './mcp-tools.ts';

type AnyContract = ActionContract<unknown, unknown>;

const access = (c: AnyContract) => {
  const a = c.http!.access;
  return a === 'public' ? 'public' : a === 'authenticated' ? 'any credential' : `scope \`${a}\``;
};

/** One line per operation: method, path, who may call it, what it does. */
function operationLine(c: AnyContract): string {
  const http = c.http!;
  const flags = [access(c), http.company === 'required' ? 'acts for one company' : '', http.testModeOnly ? 'sandbox keys only' : ''].filter(Boolean).join('; ');
  return `- \`${http.method} ${http.path}\` (${flags}): ${http.summary}`;
}

export function llmsTxt(contracts: readonly AnyContract[], publicUrl: string): string {
  const routes = contracts.filter((c) => c.http);
  const byTag = new Map<string, AnyContract[]>();
  for (const c of routes) byTag.set(c.http!.tag, [...(byTag.get(c.http!.tag) ?? []), c]);
  const has = (path: string) => routes.some((c) => c.http!.path === path);
  const minutes = AGENT_GRANT_SECONDS / 60;
  const lines = [
    '# Electronic Invoicing Exchange API',
    '',
    '> Send and receive e-invoices over Peppol, validate them against EN 16931 and national rules, follow their lifecycle, report to tax platforms. '
      + `JSON over HTTPS at ${publicUrl}; every call but the public ones carries \`Authorization: Bearer <API key>\`.`,
    '',
    `Full reference: [OpenAPI 3.1](${publicUrl}/v1/openapi.json), [API reference page](${publicUrl}/docs), [error codes](${publicUrl}/docs/errors.json).`,
    '',
    '## Getting a key as an agent',
    '',
    'An agent never needs a human\'s full-power key. Its key is a personal key of one company whose scopes never exceed those of the credential that allowed it.',
    '',
  ];
  if (has('/v1/oauth/authorize')) {
    lines.push(
      '**Consent with PKCE (RFC 7636, S256 only):**',
      '1. Make a code verifier (43 to 128 characters of A-Z a-z 0-9 - . _ ~) and its challenge: BASE64URL (no padding) of its SHA-256.',
      `2. \`POST /v1/oauth/authorize\` with \`{"client_name", "scopes": [...], "code_challenge", "code_challenge_method": "S256"}\` (no credential). Show the answer's \`consentUrl\` to the user; the request waits ${minutes} minutes.`,
      '3. The user consents with their own credential: `POST /v1/oauth/authorizations/<id>/consent`, which answers a single-use `code`, handed to the agent.',
      '4. `POST /v1/oauth/keys` with `{"code", "code_verifier"}` (no credential) answers the key (`key`, shown once). A wrong verifier, an expired or used code: 400 `INVALID_GRANT`.',
      '',
    );
  }
  if (has('/v1/oauth/handoffs/redeem')) {
    lines.push(
      `**Handoff token:** a user mints a single-use token valid ${minutes} minutes (\`POST /v1/oauth/handoffs\`, scopes among ${HANDOFF_SCOPES.map((s) => `\`${s}\``).join(', ')}); `
        + 'the agent redeems it once with `POST /v1/oauth/handoffs/redeem` `{"token"}` (no credential) for its key.',
      '',
    );
  }
  if (has('/v1/sandbox/bootstrap')) lines.push('**Sandbox:** `POST /v1/sandbox/bootstrap` (no credential) gives a test organization, a Belgian test company and a test key; nothing reaches a real network.', '');
  lines.push(
    '## Scopes',
    '',
    ...SCOPES.map((s) => `- \`${s}\`: ${SCOPE_DESCRIPTIONS[s]}`),
    '',
    'A key lacking the scope a call requires gets 403 `INSUFFICIENT_SCOPE`.',
    '',
    '## MCP server',
    '',
    `Streamable HTTP at \`${publicUrl}/mcp\` (stateless, JSON answers), with the same Bearer key; or over stdio: \`EINV_API_URL=${publicUrl} EINV_API_KEY=<key> node scripts/mcp-stdio.ts\`. `
      + 'Each tool is a REST operation with the same input schema and the same scope; a refusal is the REST error envelope in a result with `isError`. '
      + `The tools that change something (${MCP_TOOLS.filter((t) => !t.readOnly).map((t) => `\`${t.name}\``).join(', ')}) take an \`idempotencyKey\``
      + ' (else the request\'s `Idempotency-Key` header): a retry with the same key answers the first result instead of sending twice.',
    '',
    ...MCP_TOOLS.map((t) => `- \`${t.name}\` (scope ${scopesOf(t).map((s) => `\`${s}\``).join(', ')}): ${t.title}; REST ${t.contracts.map((c) => `\`${c.http!.method} ${c.http!.path}\``).join(' + ')}`),
    '',
    '## Errors',
    '',
    'Every error answers `{"error": {"type", "code", "message", "details", "requestId", "docUrl"}}`; `code` is stable (for example `INSUFFICIENT_SCOPE`, `UBL_VALIDATION_FAILED` with `findings`, `RATE_LIMITED` with `Retry-After`). '
      + 'Do not retry 4xx except 429; on 429 and 503 wait `Retry-After` seconds. Send `Idempotency-Key` on POSTs you may retry.',
    '',
    '## Operations',
    '',
  );
  for (const [tag, list] of [...byTag.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`### ${tag}`, '', ...list.map(operationLine), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
