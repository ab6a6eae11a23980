/**
 * An SML on 127.0.0.1: the ManageBusinessIdentifierService (SOAP 1.1) over HTTPS that requires a
 * client certificate issued by (or equal to) the SMP certificates it is given, the way the SML
 * knows SMPs by their Peppol certificate. It keeps which SMP owns each participant and the
 * migration keys prepared for them, answers faults as the SML does (BadRequest, NotFound,
 * Unauthorized in the SOAP detail) and, given an SML zone (test/support/sml-dns.ts), publishes and
 * withdraws the participants' NAPTR records there.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { selfSignedCertificate } from './certificates.ts';
import libxml from 'libxmljs2';
import type { SmlDns } from './sml-dns.ts';

const LOCATOR_NS = 'http://busdox.org/serviceMetadata/locator/1.0/';
const IDS_NS = 'http://busdox.org/transport/identifiers/1.0/';

export interface SmlCall { operation: string; smpId: string; participantId: string; clientSubject: string }

export interface SmlSimulator {
  url: string;
  /** The simulator's TLS certificate (PEM), for the client's trusted CAs. */
  caPem: string;
  calls: SmlCall[];
  /** participant → owning SMP id */
  owners: Map<string, string>;
  /** participant → the migration key its SMP prepared */
  migrationKeys: Map<string, string>;
  /** SMP id → its SMP base URL (published in the zone's NAPTR records). */
  smpUrls: Map<string, string>;
  down: boolean;
  close(): Promise<void>;
}


const fault = (kind: 'BadRequest' | 'NotFound' | 'Unauthorized', message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>` +
  `<faultcode>soap:Client</faultcode><faultstring>${message}</faultstring><detail><lrs:${kind}Fault xmlns:lrs="${LOCATOR_NS}">` +
  `<lrs:FaultMessage>${message}</lrs:FaultMessage></lrs:${kind}Fault></detail></soap:Fault></soap:Body></soap:Envelope>`;
const ok = (operation: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation}Response/></soap:Body></soap:Envelope>`;

export async function startSmlSimulator(trustedSmpCertificates: string[], zone?: SmlDns): Promise<SmlSimulator> {
  const tls = selfSignedCertificate('127.0.0.1', { ip: '127.0.0.1' });
  const migrationKeys = new Map<string, string>();
  const sim: Omit<SmlSimulator, 'url' | 'close'> = { caPem: tls.certPem, calls: [], owners: new Map(), migrationKeys, smpUrls: new Map(), down: false };
  const publish = (participantId: string, smpId: string | undefined) => {
    if (!zone) return;
    const url = smpId ? sim.smpUrls.get(smpId) : undefined;
    if (url) zone.register(participantId, url); else zone.unregister(participantId);
  };

  const server: Server = createServer({ key: tls.keyPem, cert: tls.certPem, requestCert: true, rejectUnauthorized: true, ca: trustedSmpCertificates }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: string) => { res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' }); res.end(body); };
      if (sim.down) return send(503, 'SML maintenance');
      if (req.method !== 'POST' || !req.url?.endsWith('/manageparticipantidentifier')) return send(404, 'no such service');
      let body: libxml.Element;
      try {
        body = libxml.parseXml(Buffer.concat(chunks).toString('utf8'), { nonet: true }).get('//*[local-name()="Body"]/*') as libxml.Element;
      } catch {
        return send(500, fault('BadRequest', 'not well-formed'));
      }
      const operation = body.name();
      const smpId = (body.get('lrs:ServiceMetadataPublisherID', { lrs: LOCATOR_NS }) as libxml.Element | null)?.text() ?? '';
      const participantId = ((body.get('ids:ParticipantIdentifier', { ids: IDS_NS }) as libxml.Element | null)?.text() ?? '').toLowerCase();
      const key = (body.get('lrs:MigrationKey', { lrs: LOCATOR_NS }) as libxml.Element | null)?.text();
      const client = (req.socket as TLSSocket).getPeerCertificate();
      sim.calls.push({ operation, smpId, participantId, clientSubject: String(client.subject?.CN ?? '') });
      const owner = sim.owners.get(participantId);
      switch (operation) {
        case 'CreateParticipantIdentifier':
          if (owner && owner !== smpId) return send(500, fault('BadRequest', `The participant identifier '${participantId}' is already registered by SMP '${owner}'`));
          sim.owners.set(participantId, smpId);
          publish(participantId, smpId);
          return send(200, ok(operation));
        case 'DeleteParticipantIdentifier':
          if (!owner) return send(500, fault('NotFound', `The participant identifier '${participantId}' does not exist`));
          if (owner !== smpId) return send(500, fault('Unauthorized', `The participant identifier '${participantId}' belongs to another SMP`));
          sim.owners.delete(participantId);
          publish(participantId, undefined);
          return send(200, ok(operation));
        case 'PrepareMigrationRecord':
          if (owner !== smpId) return send(500, fault(owner ? 'Unauthorized' : 'NotFound', `The participant identifier '${participantId}' is not registered by SMP '${smpId}'`));
          migrationKeys.set(participantId, key ?? '');
          return send(200, ok(operation));
        case 'CompleteMigrationRecord':
          if (!owner) return send(500, fault('NotFound', `The participant identifier '${participantId}' does not exist`));
          if (!key || migrationKeys.get(participantId) !== key) return send(500, fault('BadRequest', `The migration key for '${participantId}' is not the one its SMP prepared`));
          migrationKeys.delete(participantId);
          sim.owners.set(participantId, smpId);
          publish(participantId, smpId);
          return send(200, ok(operation));
        default:
          return send(500, fault('BadRequest', `unsupported operation ${operation}`));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sim, {
    url: `https://127.0.0.1:${port}/edelivery-sml`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  }) as SmlSimulator;
}
