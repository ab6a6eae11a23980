/**
 * A DNS zone on 127.0.0.1 (dns2, UDP) answering TXT records a test publishes and NXDOMAIN for every
 * other name: a customer's DNS host, where a white-label custom domain's challenge is created.
 */
import dns2 from 'dns2';

export interface TxtDns {
  /** `127.0.0.1:<port>`, for EINV_CUSTOM_DOMAIN_DNS_SERVERS. */
  server: string;
  publish(name: string, value: string): void;
  close(): Promise<void>;
}

export async function startTxtDns(): Promise<TxtDns> {
  const records = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const q = request.questions[0];
      const values = q ? records.get(q.name.toLowerCase()) : undefined;
      if (!q || !values) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (q.type === Packet.TYPE.TXT) for (const data of values) response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data } as (typeof response.answers)[number]);
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } }) as { udp: { port: number } };
  return {
    server: `127.0.0.1:${addresses.udp.port}`,
    publish(name, value) { records.set(name.toLowerCase(), [...(records.get(name.toLowerCase()) ?? []), value]); },
    close: async () => { await server.close(); },
  };
}
