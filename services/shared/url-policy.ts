/**
 * Outbound URL checks (webhook receivers, PunchOut catalogs). Live targets must be HTTPS to public addresses: loopback, private,
 * link-local, CGNAT, multicast and reserved ranges are refused, at creation and again before every
 * attempt (the name is resolved each time). Sandbox webhooks may target anything (local receivers).
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96]] as const) blocked.addSubnet(net, bits, 'ipv6');

/** True for an address no live webhook may reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** Shape problems of a receiver URL (any mode), as a message; undefined when fine. */
export function urlShapeProblem(raw: string, livemode: boolean): string | undefined {
  let url: URL;
  try { url = new URL(raw); } catch { return 'must be an absolute URL'; }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (livemode && url.protocol !== 'https:') return 'must be an HTTPS URL for live webhooks';
  if (url.username || url.password) return 'must not carry credentials';
  return undefined;
}

/** For live webhooks: a message when the host is or resolves to a non-public address. */
export async function privateTargetProblem(raw: string): Promise<string | undefined> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return `host '${host}' does not resolve`;
    }
  }
  const bad = addresses.find(isPrivateAddress);
  return bad ? `targets a private or loopback address (${bad}); live webhooks must reach a public address` : undefined;
}
