/**
 * The connector host's HTTP port (undici): a whole-exchange timeout on every call, bodies read in
 * full (bounded), and one connection pool per mutual-TLS identity. A timeout or a network error is
 * a transient ConnectorError, so a send is re-sent on the platform's schedule.
 */
import { Agent, request } from 'undici';
import { ConnectorError, type HttpRequestOptions, type HttpResponse, type Secret } from '../../adapters/sdk/index.ts';

const DEFAULT_TIMEOUT_MS = 30_000;
/** Largest answer a connector reads, in bytes. */
const MAX_RESPONSE_BYTES = 50 * 1024 * 1024;

const reveal = (v: string | Secret | undefined) => (v === undefined ? undefined : typeof v === 'string' ? v : v.reveal());

export interface HttpClient {
  request(url: string, options?: HttpRequestOptions): Promise<HttpResponse>;
  close(): Promise<void>;
}

export function createHttpClient(): HttpClient {
  const agents = new Map<string, Agent>();
  const plain = new Agent({ connections: 64 });

  function agentFor(tls: HttpRequestOptions['tls']): Agent {
    if (!tls) return plain;
    const connect = { cert: reveal(tls.cert), key: reveal(tls.key), ca: tls.ca, passphrase: reveal(tls.passphrase), rejectUnauthorized: tls.rejectUnauthorized ?? true };
    // Keyed by the identity's material itself: the map lives in memory only, never logged.
    const key = JSON.stringify(connect);
    let agent = agents.get(key);
    if (!agent) {
      agent = new Agent({ connections: 64, connect });
      agents.set(key, agent);
    }
    return agent;
  }

  /** Requests under way, so closing can cut them. */
  const running = new Map<AbortController, Promise<unknown>>();

  return {
    async request(url, options = {}) {
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const cut = new AbortController();
      const signal = AbortSignal.any([timeout, cut.signal]);
      let done!: () => void;
      running.set(cut, new Promise<void>((resolve) => { done = resolve; }));
      try {
        const res = await request(url, {
          method: (options.method ?? 'GET') as 'GET',
          headers: options.headers ?? {},
          ...(options.body !== undefined ? { body: options.body } : {}),
          dispatcher: agentFor(options.tls),
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > MAX_RESPONSE_BYTES) { res.body.destroy(); throw ConnectorError.transient('HTTP_RESPONSE_TOO_LARGE', `${new URL(url).host} answered more than ${MAX_RESPONSE_BYTES} bytes`); }
          chunks.push(chunk as Buffer);
        }
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        return { status: res.statusCode, headers, body, text: () => body.toString('utf8') };
      } catch (err) {
        if (err instanceof ConnectorError) throw err;
        const host = (() => { try { return new URL(url).host; } catch { return url; } })();
        if (timeout.aborted) throw ConnectorError.transient('HTTP_TIMEOUT', `${host} did not answer within ${timeoutMs} ms`);
        if (cut.signal.aborted) throw ConnectorError.transient('HTTP_ABORTED', `${host}: the connector stopped before the answer came`);
        throw ConnectorError.transient('HTTP_NETWORK_ERROR', `${host}: ${(err as Error).message}`);
      } finally {
        running.delete(cut);
        done();
      }
    },
    async close() {
      // The broker's graceful stop has already waited for running calls (MOL_SHUTDOWN_TIMEOUT_MS):
      // what still runs is cut, fails as transient and is re-sent by whoever runs next.
      for (const cut of running.keys()) cut.abort();
      await Promise.allSettled([...running.values()]);
      await Promise.all([plain, ...agents.values()].map((a) => a.close().catch(() => undefined)));
      agents.clear();
    },
  };
}
