import type { IncomingMessage } from 'node:http';

/** The caller's address: the first X-Forwarded-For hop behind a trusted proxy (EINV_TRUST_PROXY), else the socket's. */
export function clientIp(req: IncomingMessage): string {
  if (process.env.EINV_TRUST_PROXY === 'true') {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
