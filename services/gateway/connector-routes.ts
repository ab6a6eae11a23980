/**
 * The push-receive routes of connectors, mounted at `/connectors/<id>/<route>` outside the API's
 * key authentication: the gateway forwards the request as it came (bytes, headers, the client
 * certificate) to `adapter.<id>.route`, which checks the route's own authentication (mutual TLS or
 * a signature) before the connector sees it, and writes back the connector's answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ServiceBroker } from 'moleculer';
import { call } from '../shared/call.ts';
import { specCodeOf } from '../shared/errors.ts';
import type { AppConfig } from '../shared/config.ts';
import { adapterContracts, registeredManifests, type RouteRequest } from '../connectors/adapters.contract.ts';
import { readBytes } from './http-body.ts';

type Req = IncomingMessage & { $params?: Record<string, unknown>; query?: Record<string, unknown> };

/** A client certificate verified by our own TLS server, or by a trusted proxy (`X-Client-Cert`, URL-encoded PEM). */
function clientCertificate(req: IncomingMessage): RouteRequest['clientCertificate'] | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.encrypted && socket.authorized && socket.getPeerX509Certificate) {
    const cert = socket.getPeerX509Certificate();
    if (cert) return { subject: cert.subject, fingerprint256: cert.fingerprint256, pem: cert.toString() };
  }
  const forwarded = req.headers['x-client-cert'];
  if (process.env.EINV_TRUST_PROXY === 'true' && typeof forwarded === 'string' && forwarded) {
    try {
      const cert = new X509Certificate(decodeURIComponent(forwarded));
      return { subject: cert.subject, fingerprint256: cert.fingerprint256, pem: cert.toString() };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

export function connectorRouteHandler(broker: ServiceBroker, config: AppConfig) {
  return async function handle(req: Req, res: ServerResponse): Promise<void> {
    const connectorId = String(req.$params?.connectorId ?? '');
    const route = String(req.$params?.route ?? '');
    try {
      const manifest = registeredManifests(broker).find((m) => m.id === connectorId);
      if (!manifest?.capabilities.pushReceive) return plain(res, 404, 'no such connector route');
      const body = await readBytes(req, config.maxBodyBytes);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'authorization' && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(', ') : v;
      if (req.headers.authorization) headers.authorization = req.headers.authorization;
      const query = Object.fromEntries(Object.entries(req.query ?? {}).map(([k, v]) => [k, String(v)]));
      const cert = clientCertificate(req);
      const answer = await call(broker, adapterContracts(connectorId).route, {
        method: req.method ?? 'GET', route, headers, query, body: body.toString('base64'), ...(cert ? { clientCertificate: cert } : {}),
      });
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body === undefined ? undefined : Buffer.from(answer.body, answer.bodyEncoding === 'base64' ? 'base64' : 'utf8'));
    } catch (err) {
      const status = specCodeOf(err) === 'PAYLOAD_TOO_LARGE' ? 413 : 503;
      broker.logger.warn(`connector route /connectors/${connectorId}/${route} failed: ${(err as Error).message}`);
      // The network retries on 5xx; nothing was stored unless the connector answered.
      if (!res.headersSent) plain(res, status, status === 413 ? 'request body too large' : 'temporarily unavailable; retry');
      else res.end();
    }
  };
}
