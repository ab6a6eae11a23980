/**
 * The PPF on 127.0.0.1, as the fr-ppf connector reaches it: a PISTE-style OAuth2 token endpoint
 * (client credentials) and the flow deposit API (XP Z12-013 Flow Service shape: `POST /v1/flows`
 * multipart flowInfo + file → 202 with the flow and its acknowledgement, `GET /v1/flows/{flowId}`).
 *
 * It checks the bearer token, reads each deposited CDAR with our reader, records it, and judges it by
 * the message's own facts, with the two PPF rejections the spec names:
 * - **00025**, the invoice number does not match the format: the referenced invoice number (MDT-87)
 *   must be 1 to 35 letters, digits and `+ - _ /` — the BR-FR-01/02 format of BT-1;
 * - **00058**, the executing service is missing for a public buyer: a buyer (role BY, as issuer or
 *   recipient) whose SIREN begins with 1 or 2 — the INSEE ranges of public-law entities — and whose
 *   electronic address (MDT-73) carries no service code after its SIREN/SIRET
 *   (`<SIREN>[_<SIRET>]_<service>`, the routing code of the French directory). A message that does
 *   not name the buyer (200, 213) cannot be judged on it.
 * Anything else is accepted (acknowledgement `Ok`). The same `trackingId` again answers the first
 * flow, as the Flow Service's unicity check does: a status is filed once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { readCdar, type CdarFacts, type CdarPartyFacts } from '../../mappings/index.ts';
import { freePort } from './servers.ts';

export const PPF_REJECTIONS = {
  '00025': 'Le numéro de facture ne respecte pas le format attendu',
  '00058': 'Le code service exécutant est obligatoire pour un acheteur public',
} as const;

export interface PpfFlow {
  flowId: string;
  trackingId: string;
  name: string;
  submittedAt: string;
  /** The CDAR as deposited, and what our reader made of it. */
  xml: string;
  facts: CdarFacts | null;
  acknowledgement: { status: 'Ok' | 'Error'; details: Array<{ level: 'Error'; item: string; reasonCode: string; reasonMessage: string }> };
}

export interface PpfSimulator {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every deposit received (a repeated trackingId included), in order. */
  deposits: Array<{ trackingId: string; authorized: boolean }>;
  /** The flows filed, by trackingId (each once). */
  flows: Map<string, PpfFlow>;
  tokensIssued: number;
  /** Answer the next n deposits with this HTTP status (503 …) before handling them. */
  failNext(n: number, status: number): void;
  close(): Promise<void>;
}

const INVOICE_NUMBER = /^[A-Za-z0-9+\-_/]{1,35}$/;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage, limit = 2 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('request too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The buyer's SIREN and electronic address, as the message names them (issuer or recipient BY). */
function buyerOf(facts: CdarFacts): CdarPartyFacts | undefined {
  return [facts.issuer, ...facts.recipients].find((p) => p?.role === 'BY');
}

/** The PPF's verdict on a status message (see the module comment for the criteria). */
export function judge(facts: CdarFacts): PpfFlow['acknowledgement'] {
  const details: PpfFlow['acknowledgement']['details'] = [];
  if (!INVOICE_NUMBER.test(facts.invoice.number)) {
    details.push({ level: 'Error', item: 'MDT-87', reasonCode: '00025', reasonMessage: `${PPF_REJECTIONS['00025']} : "${facts.invoice.number}"` });
  }
  const buyer = buyerOf(facts);
  if (buyer) {
    const address = buyer.address?.value ?? '';
    const siren = buyer.ids.find((i) => i.scheme === '0002')?.value ?? /^\d{9}/.exec(address)?.[0];
    const parts = address.split('_');
    const service = parts.length > 1 && !/^\d{14}$/.test(parts[parts.length - 1]!) ? parts[parts.length - 1] : undefined;
    if (siren && /^[12]/.test(siren) && !service) {
      details.push({ level: 'Error', item: 'MDT-73', reasonCode: '00058', reasonMessage: `${PPF_REJECTIONS['00058']} (SIREN ${siren})` });
    }
  }
  return { status: details.length ? 'Error' : 'Ok', details };
}

export async function startPpfSimulator(options: { clientId?: string; clientSecret?: string } = {}): Promise<PpfSimulator> {
  const clientId = options.clientId ?? 'einv-ppf-client';
  const clientSecret = options.clientSecret ?? `ppf-secret-${randomUUID()}`;
  const tokens = new Set<string>();
  const deposits: PpfSimulator['deposits'] = [];
  const flows = new Map<string, PpfFlow>();
  const byId = new Map<string, PpfFlow>();
  let failures: { n: number; status: number } = { n: 0, status: 503 };
  let tokensIssued = 0;

  const view = (f: PpfFlow) => ({
    flowId: f.flowId, trackingId: f.trackingId, name: f.name, submittedAt: f.submittedAt, updatedAt: f.submittedAt,
    flowSyntax: 'CDAR', flowType: 'StateCustomerInvoiceLC', processingRule: 'B2B', processingRuleSource: 'Computed', flowDirection: 'In',
    acknowledgement: f.acknowledgement,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams((await bodyOf(req)).toString('utf8'));
      if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return json(res, 401, { error: 'invalid_client' });
      const token = randomUUID();
      tokens.add(token);
      tokensIssued++;
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') ?? '' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const authorized = !!bearer && tokens.has(bearer);
    if (req.method === 'POST' && url.pathname === '/v1/flows') {
      const raw = await bodyOf(req);
      if (failures.n > 0) { failures = { ...failures, n: failures.n - 1 }; return json(res, failures.status, { errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'try again later' }); }
      let trackingId = '';
      try {
        const form = await new Request('http://ppf.invalid/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(raw) }).formData();
        const info = form.get('flowInfo');
        const file = form.get('file');
        const flowInfo = JSON.parse(typeof info === 'string' ? info : await (info as Blob).text()) as { trackingId?: string; name?: string; flowSyntax?: string; sha256?: string };
        trackingId = flowInfo.trackingId ?? '';
        deposits.push({ trackingId, authorized });
        if (!authorized) return json(res, 401, { errorCode: 'UNAUTHORIZED', errorMessage: 'a valid bearer token is required' });
        if (!(file instanceof Blob) || flowInfo.flowSyntax !== 'CDAR' || !flowInfo.name) return json(res, 400, { errorCode: 'MISSING_REQUIRED_FIELD', errorMessage: 'flowInfo (name, flowSyntax CDAR) and file are required' });
        const bytes = Buffer.from(await file.arrayBuffer());
        if (flowInfo.sha256 && createHash('sha256').update(bytes).digest('hex') !== flowInfo.sha256) return json(res, 400, { errorCode: 'ChecksumMismatch', errorMessage: 'sha256 does not match the file' });
        const existing = trackingId ? flows.get(trackingId) : undefined;
        if (existing) return json(res, 202, view(existing));
        let facts: CdarFacts | null = null;
        let acknowledgement: PpfFlow['acknowledgement'];
        try {
          facts = readCdar(bytes);
          acknowledgement = judge(facts);
        } catch (err) {
          acknowledgement = { status: 'Error', details: [{ level: 'Error', item: 'file', reasonCode: 'InvalidSchema', reasonMessage: (err as Error).message }] };
        }
        const flow: PpfFlow = { flowId: `ppf_${randomUUID()}`, trackingId: trackingId || randomUUID(), name: flowInfo.name, submittedAt: new Date().toISOString(), xml: bytes.toString('utf8'), facts, acknowledgement };
        flows.set(flow.trackingId, flow);
        byId.set(flow.flowId, flow);
        // The deposit's answer is the flow without its verdict: the client reads the acknowledgement from the flow.
        return json(res, 202, { flowId: flow.flowId, trackingId: flow.trackingId, name: flow.name, submittedAt: flow.submittedAt, flowSyntax: 'CDAR' });
      } catch (err) {
        if (!trackingId) deposits.push({ trackingId, authorized });
        return json(res, 400, { errorCode: 'INVALID_REQUEST', errorMessage: (err as Error).message });
      }
    }
    const flowPath = /^\/v1\/flows\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && flowPath) {
      if (!authorized) return json(res, 401, { errorCode: 'UNAUTHORIZED', errorMessage: 'a valid bearer token is required' });
      const flow = byId.get(decodeURIComponent(flowPath[1]!));
      return flow ? json(res, 200, view(flow)) : json(res, 404, { errorCode: 'NOT_FOUND', errorMessage: 'no such flow' });
    }
    return json(res, 404, { errorCode: 'NOT_FOUND', errorMessage: `${req.method} ${url.pathname}` });
  }

  const server: Server = createServer((req, res) => { handle(req, res).catch((err: unknown) => json(res, 500, { errorCode: 'INTERNAL', errorMessage: (err as Error).message })); });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    tokenUrl: `${url}/token`,
    clientId,
    clientSecret,
    deposits,
    flows,
    get tokensIssued() { return tokensIssued; },
    failNext(n, status) { failures = { n, status }; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The fr-ppf connector's variables for this simulator (token and deposit endpoints, its client, quick acknowledgement polls). */
export function frPpfEnv(sim: PpfSimulator): Record<string, string> {
  return {
    EINV_CONNECTOR_FR_PPF_BASE_URL: sim.url, EINV_CONNECTOR_FR_PPF_TOKEN_URL: sim.tokenUrl,
    EINV_CONNECTOR_FR_PPF_CLIENT_ID: sim.clientId, EINV_CONNECTOR_FR_PPF_CLIENT_SECRET: sim.clientSecret,
    EINV_CONNECTOR_FR_PPF_ACK_POLL_MS: '50',
  };
}
