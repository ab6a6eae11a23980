/**
 * The SML's DNS zone on 127.0.0.1: a real DNS server (dns2, UDP) answering the U-NAPTR record of
 * each participant registered with it (`Meta:SMP`, regexp `!^.*$!<smp url>!`) and NXDOMAIN for
 * every other name, the way the Peppol SML zone answers. Counts the queries it gets, so a test can
 * show an answer came from a cache.
 */
import dns2 from 'dns2';
import { naptrName } from '../../mappings/identifiers/peppol-network.ts';

const NAPTR = 35;

/** RFC 3403 rdata: order, preference, flags, services, regexp, replacement (the root). */
function naptrRdata(smpUrl: string): Buffer {
  const str = (s: string) => { const b = Buffer.from(s, 'utf8'); return Buffer.concat([Buffer.from([b.length]), b]); };
  const head = Buffer.alloc(4);
  head.writeUInt16BE(100, 0);
  head.writeUInt16BE(10, 2);
  return Buffer.concat([head, str('U'), str('Meta:SMP'), str(`!^.*$!${smpUrl}!`), Buffer.from([0])]);
}

export interface SmlDns {
  /** `127.0.0.1:<port>`, for the resolver's servers. */
  server: string;
  zone: string;
  queries: number;
  register(participantId: string, smpUrl: string): void;
  unregister(participantId: string): void;
  close(): Promise<void>;
}

export async function startSmlDns(zone = 'participant.sml.test.local'): Promise<SmlDns> {
  const records = new Map<string, string>();
  const { Packet } = dns2;
  const state = { queries: 0 };
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      state.queries++;
      const response = Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      const smpUrl = q ? records.get(q.name.toLowerCase()) : undefined;
      if (!q || smpUrl === undefined) response.header.rcode = Packet.RCODE.NXDOMAIN;
      // dns2 has no NAPTR codec: it writes a resource's raw rdata as given
      else if (q.type === NAPTR) response.answers.push({ name: q.name, type: NAPTR, class: Packet.CLASS.IN, ttl: 60, data: naptrRdata(smpUrl) } as unknown as (typeof response.answers)[number]);
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } }) as { udp: { port: number } };
  return {
    server: `127.0.0.1:${addresses.udp.port}`,
    zone,
    get queries() { return state.queries; },
    register(participantId, smpUrl) { records.set(naptrName(participantId, zone).toLowerCase(), smpUrl); },
    unregister(participantId) { records.delete(naptrName(participantId, zone).toLowerCase()); },
    close: async () => { await server.close(); },
  };
}
