/**
 * An approval service on 127.0.0.1, as services/portability/approval-client.ts reaches it:
 * `POST /checks {contextKey, userIds, subject, documentSha256}` → 201 `{id, status: 'open'}` and
 * `GET /checks/{id}` → `{id, status, decidedAt, decidedBy}`. The test decides each check
 * (`decide(id, 'passed' | 'refused' | 'withdrawn', by, at)`), can make the service slow (`stall`:
 * it accepts the connection and never answers) and reads what was asked of it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { freePort } from './servers.ts';

export interface SimulatedCheck {
  id: string;
  contextKey: string;
  userIds: string[];
  subject: string;
  documentSha256: string;
  status: 'open' | 'passed' | 'refused' | 'withdrawn';
  decidedAt: string | null;
  decidedBy: string | null;
}

export interface ApprovalSimulator {
  url: string;
  checks: Map<string, SimulatedCheck>;
  /** GETs of each check, in order. */
  reads: string[];
  decide(id: string, status: 'passed' | 'refused' | 'withdrawn', by?: string, at?: string): void;
  /** While true, every request is held without an answer (a service that does not answer). */
  stall: boolean;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startApprovalSimulator(): Promise<ApprovalSimulator> {
  const port = await freePort();
  const held: ServerResponse[] = [];
  const sim: ApprovalSimulator = {
    url: `http://127.0.0.1:${port}`,
    checks: new Map(),
    reads: [],
    stall: false,
    decide(id, status, by = 'user_approver', at = new Date().toISOString()) {
      const check = sim.checks.get(id);
      if (!check) throw new Error(`no check ${id}`);
      Object.assign(check, { status, decidedAt: at, decidedBy: by });
    },
    close: () => new Promise<void>((resolve) => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (sim.stall) { held.push(res); return; }
      const url = new URL(req.url ?? '/', sim.url);
      if (req.method === 'POST' && url.pathname === '/checks') {
        const body = JSON.parse(await bodyOf(req)) as Partial<SimulatedCheck>;
        if (typeof body.contextKey !== 'string' || !Array.isArray(body.userIds) || body.userIds.length === 0) return json(res, 400, { error: 'contextKey and userIds are required' });
        const check: SimulatedCheck = {
          id: `chk_${randomUUID()}`, contextKey: body.contextKey, userIds: body.userIds, subject: String(body.subject ?? ''), documentSha256: String(body.documentSha256 ?? ''),
          status: 'open', decidedAt: null, decidedBy: null,
        };
        sim.checks.set(check.id, check);
        return json(res, 201, { id: check.id, status: check.status });
      }
      const m = /^\/checks\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        const check = sim.checks.get(decodeURIComponent(m[1]!));
        if (!check) return json(res, 404, { error: 'no such check' });
        sim.reads.push(check.id);
        return json(res, 200, { id: check.id, status: check.status, decidedAt: check.decidedAt, decidedBy: check.decidedBy });
      }
      json(res, 404, { error: 'not found' });
    })().catch(() => json(res, 500, { error: 'simulator failure' }));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return sim;
}
