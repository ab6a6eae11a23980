/**
 * What this connector has heard from the SDI, per host: the last notification for each
 * IdentificativoSdI, so `status` can answer from it. Bounded (oldest forgotten first): the durable
 * record is the platform's, through `host.outbound.statusReceived`; this only lets `status` answer
 * sooner than its next check. Also the client TLS material, read once per host.
 */
import type { ConnectorHost } from '../sdk/index.ts';
import type { SdiNotification } from './notifications.ts';

/** Notifications kept for `status`. */
const MAX_REMEMBERED = 10_000;

const heard = new WeakMap<ConnectorHost, Map<string, SdiNotification>>();

function heardBy(host: ConnectorHost): Map<string, SdiNotification> {
  let m = heard.get(host);
  if (!m) heard.set(host, (m = new Map()));
  return m;
}

export function rememberNotification(host: ConnectorHost, n: SdiNotification): void {
  const m = heardBy(host);
  m.delete(n.identificativoSdI); // re-inserted last: the newest survives the bound longest
  m.set(n.identificativoSdI, n);
  while (m.size > MAX_REMEMBERED) m.delete(m.keys().next().value!);
}

export function lastNotification(host: ConnectorHost, identificativoSdI: string): SdiNotification | undefined {
  return heard.get(host)?.get(identificativoSdI);
}
