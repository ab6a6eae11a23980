/**
 * The contract every connector passes, run from a jest test of the connector:
 *
 *   describeConnectorContract(myConnector, { known: {...}, unknown: {...}, directory: [...] });
 *
 * It drives the connector through an in-memory host (directory and inbox as plain arrays), so a
 * connector is tested without the platform.
 */
import { validateManifest, type Connector, type ConnectorHost, type DirectoryEntry, type InboundDocument, type OutboundMessage, type Participant } from './index.ts';

export interface ContractFixtures {
  /** A recipient the connector reaches (with the directory below). */
  known: Participant;
  /** A recipient nobody registered. */
  unknown: Participant;
  /** What the host's directory knows. */
  directory: DirectoryEntry[];
  /** A document type `known` accepts. */
  documentType: string;
}

export interface MemoryHost extends ConnectorHost {
  inboxed: InboundDocument[];
}

export function memoryHost(directory: DirectoryEntry[], now: () => Date = () => new Date()): MemoryHost {
  const inboxed: InboundDocument[] = [];
  const ids = new Map<string, string>();
  return {
    inboxed,
    now,
    directory: {
      async lookup(p) {
        return directory.find((d) => (p.companyId && d.companyId === p.companyId) || (p.peppolId && d.peppolId === p.peppolId)) ?? null;
      },
    },
    inbox: {
      async deliver(doc) {
        const existing = ids.get(doc.messageId);
        if (existing) return { documentId: existing };
        inboxed.push(doc);
        const documentId = `doc_in_${inboxed.length}`;
        ids.set(doc.messageId, documentId);
        return { documentId };
      },
    },
  };
}

export function sampleMessage(recipient: Participant, type: string, attempt = 1): OutboundMessage {
  return {
    documentId: `doc_contract_${Math.random().toString(36).slice(2)}`,
    type,
    number: 'CONTRACT-1',
    sender: { peppolId: '0208:0000000097', name: 'Contract Sender', organizationId: 'org_contract', companyId: 'comp_contract' },
    recipient,
    payload: { content: Buffer.from('<Invoice/>').toString('base64'), contentType: 'application/xml', xml: '<Invoice/>', syntax: 'ubl-2.1' },
    attempt,
  };
}

export function describeConnectorContract(connector: Connector, fx: ContractFixtures): void {
  describe(`connector contract: ${connector.manifest.id}`, () => {
    it('has a valid manifest', () => {
      expect(validateManifest(connector.manifest)).toEqual([]);
      expect(connector.manifest.documentTypes).toContain(fx.documentType);
    });

    it('check: an unknown participant is not known and cannot receive', async () => {
      const r = await connector.check({ recipient: fx.unknown, documentType: fx.documentType }, memoryHost(fx.directory));
      expect(r).toMatchObject({ known: false, canReceive: false });
    });

    it('check: a known participant can receive a type it accepts, and lists its types', async () => {
      const r = await connector.check({ recipient: fx.known, documentType: fx.documentType }, memoryHost(fx.directory));
      expect(r).toMatchObject({ known: true, canReceive: true });
      expect(r.documentTypes).toContain(fx.documentType);
    });

    it('send: answers one of the SDK outcomes, and a handed-over message can be followed with status', async () => {
      const host = memoryHost(fx.directory);
      const r = await connector.send(sampleMessage(fx.known, fx.documentType), host);
      expect(['delivered', 'accepted', 'rejected', 'transient']).toContain(r.outcome);
      if (r.outcome === 'delivered' || r.outcome === 'accepted') {
        expect(typeof r.messageId).toBe('string');
        const s = await connector.status(r.messageId, host);
        expect(['delivered', 'pending', 'rejected']).toContain(s.outcome);
      }
    });

    it('receive: hands the message to the inbox once, whatever the number of deliveries', async () => {
      const host = memoryHost(fx.directory);
      const msg = sampleMessage(fx.known, fx.documentType);
      const first = await connector.receive(msg, host);
      const again = await connector.receive(msg, host);
      expect(again.documentId).toBe(first.documentId);
      expect(host.inboxed).toHaveLength(1);
      expect(host.inboxed[0]).toMatchObject({ messageId: msg.documentId, type: fx.documentType, payload: msg.payload });
    });
  });
}
