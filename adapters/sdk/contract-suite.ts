/**
 * The contract every connector passes, run from a jest test of the connector:
 *
 *   describeConnectorContract(myConnector, { known: {...}, unknown: {...}, directory: [...], documentType: 'invoice' });
 *
 * It drives the connector through an in-memory host (`memoryHost`: directory and inbound as plain
 * arrays, timers run by hand), so a connector is tested without the platform. Which parts run
 * follows the manifest's capabilities.
 */
import * as translators from '../../mappings/index.ts';
import {
  ConnectorError, checkStateKey, stateValueJson, validateManifest, type AcceptResult, type Connector, type ConnectorHost, type ConnectorState,
  type DirectoryEntry, type InboundDocument, type NetworkStatus, type OutboundMessage, type Participant, type ReportMessage, type Secret,
} from './index.ts';

export interface ContractFixtures {
  /** A recipient the connector reaches (with the directory below). */
  known: Participant;
  /** A recipient nobody registered. */
  unknown: Participant;
  /** What the host's directory knows. */
  directory: DirectoryEntry[];
  /** A document type `known` accepts. */
  documentType: string;
  /** Options and secrets the connector needs (as the platform would resolve them). */
  config?: Record<string, string | number | boolean>;
  secrets?: Record<string, string>;
  /**
   * For receiving connectors: makes the network hand the same message over twice (e.g. the file
   * dropped again, the same AS4 message re-posted) through the given host.
   */
  receiveTwice?(host: MemoryHost, connector: Connector): Promise<void>;
}

export interface MemoryHost extends ConnectorHost {
  /** Documents stored by `inbound.accept` (each network message once). */
  inboxed: InboundDocument[];
  /** Every `inbound.accept` call, duplicates included. */
  acceptCalls: InboundDocument[];
  /** Every `outbound.statusReceived` call (what the network said later of sent documents). */
  statusUpdates: NetworkStatus[];
  /** Runs every timer the connector registered with `scheduler` once (pollers, delayed tasks). */
  runTimers(): Promise<void>;
  /** Timers registered and not cancelled. */
  timerCount(): number;
  logged: string[];
}

function secretOf(value: string): Secret {
  return { reveal: () => value, toString: () => '[secret]', toJSON: () => '[secret]' };
}

/**
 * The state port in memory (API 2.5), with the platform's semantics: values stored as JSON text (a
 * read is a copy), versions from 1, compare-and-set, the key and size checks. Give two memory hosts
 * the same one to play two replicas of a connector.
 */
export function memoryState(): ConnectorState {
  const entries = new Map<string, { json: string; version: number }>();
  return {
    async get<T>(key: string) {
      checkStateKey(key);
      await Promise.resolve();
      const e = entries.get(key);
      return e ? { value: JSON.parse(e.json) as T, version: e.version } : null;
    },
    async compareAndSet(key, expectedVersion, value) {
      const json = stateValueJson(key, value);
      await Promise.resolve();
      const e = entries.get(key);
      if ((e?.version ?? null) !== expectedVersion) return false;
      entries.set(key, { json, version: (e?.version ?? 0) + 1 });
      return true;
    },
    async delete(key, expectedVersion) {
      checkStateKey(key);
      await Promise.resolve();
      if (entries.get(key)?.version !== expectedVersion) return false;
      return entries.delete(key);
    },
  };
}

export function memoryHost(directory: DirectoryEntry[], options: { now?: () => Date; config?: ContractFixtures['config']; secrets?: Record<string, string>; state?: ConnectorState } = {}): MemoryHost {
  const inboxed: InboundDocument[] = [];
  const acceptCalls: InboundDocument[] = [];
  const statusUpdates: NetworkStatus[] = [];
  const logged: string[] = [];
  const ids = new Map<string, string>();
  const timers = new Set<() => Promise<void>>();
  const log = (level: string) => (m: string, extra?: Record<string, unknown>) => { logged.push(`${level} ${m}${extra ? ` ${JSON.stringify(extra)}` : ''}`); };
  return {
    inboxed,
    acceptCalls,
    logged,
    config: Object.freeze({ ...options.config }),
    secrets: {
      get(name) {
        const v = options.secrets?.[name];
        if (v === undefined) throw new Error(`secret ${name} is not configured`);
        return secretOf(v);
      },
      has: (name) => options.secrets?.[name] !== undefined,
    },
    http: {
      async request(url) { throw ConnectorError.transient('HTTP_NETWORK_ERROR', `the memory host has no network (${url})`); },
    },
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    clock: { now: options.now ?? (() => new Date()) },
    translators,
    directory: {
      async lookup(p) {
        return directory.find((d) => (p.companyId && d.companyId === p.companyId) || (p.peppolId && d.peppolId === p.peppolId)) ?? null;
      },
    },
    scheduler: {
      every(_ms, task) { timers.add(task); return { cancel: () => { timers.delete(task); } }; },
      after(_ms, task) {
        const once = async () => { timers.delete(once); await task(); };
        timers.add(once);
        return { cancel: () => { timers.delete(once); } };
      },
    },
    statusUpdates,
    outbound: {
      async statusReceived(status) {
        statusUpdates.push(status);
        return status.documentId ? { documentId: status.documentId } : null;
      },
    },
    workers: {
      // In memory, everything runs inline: the module is the connector's own.
      async run(moduleUrl, fn, args) {
        const mod = await import(moduleUrl) as Record<string, (...a: unknown[]) => unknown>;
        return await mod[fn]!(...args) as never;
      },
    },
    state: options.state ?? memoryState(),
    inbound: {
      async accept(doc): Promise<AcceptResult> {
        acceptCalls.push(doc);
        const existing = ids.get(doc.messageId);
        if (existing) return { documentId: existing, duplicate: true };
        inboxed.push(doc);
        const documentId = `doc_in_${inboxed.length}`;
        ids.set(doc.messageId, documentId);
        return { documentId, duplicate: false };
      },
    },
    async runTimers() {
      for (const task of [...timers]) await task();
    },
    timerCount: () => timers.size,
  };
}

export function sampleMessage(recipient: Participant, type: string, attempt = 1, livemode = false): OutboundMessage {
  return {
    documentId: `doc_contract_${Math.random().toString(36).slice(2)}`,
    livemode,
    type,
    number: 'CONTRACT-1',
    sender: { peppolId: '0208:0000000097', name: 'Contract Sender', organizationId: 'org_contract', companyId: 'comp_contract' },
    recipient,
    payload: { content: Buffer.from('<Invoice/>').toString('base64'), contentType: 'application/xml', xml: '<Invoice/>', syntax: 'ubl-2.1' },
    attempt,
  };
}

export function sampleReport(livemode = false, reportId = `rpt_contract_${Math.random().toString(36).slice(2)}`): ReportMessage {
  return {
    reportId,
    livemode,
    kind: 'transaction',
    country: 'FR',
    reporter: { peppolId: '0009:12345678200010', name: 'Contract Reporter', organizationId: 'org_contract', companyId: 'comp_contract' },
    period: '2026-11',
    documentIds: ['doc_contract_1'],
    payload: { content: Buffer.from('<Report/>').toString('base64'), contentType: 'application/xml', xml: '<Report/>' },
  };
}

export function describeConnectorContract(connector: Connector, fx: ContractFixtures): void {
  const { manifest } = connector;
  const caps = manifest.capabilities;
  const livemode = !manifest.modes.includes('test');
  const host = () => memoryHost(fx.directory, { ...(fx.config ? { config: fx.config } : {}), ...(fx.secrets ? { secrets: fx.secrets } : {}) });

  describe(`connector contract: ${manifest.id}`, () => {
    it('has a valid manifest whose capabilities have their verbs', () => {
      expect(validateManifest(manifest, connector)).toEqual([]);
      expect(manifest.documentTypes).toContain(fx.documentType);
    });

    if (caps.pollReceive) {
      it('poll-receive: start registers its poller on the host scheduler', async () => {
        const h = host();
        await connector.start!(h);
        try {
          expect(h.timerCount()).toBeGreaterThan(0);
        } finally {
          await connector.stop?.(h);
        }
      });
    }

    if (caps.discover) {
      it('check: an unknown participant is not known and cannot receive', async () => {
        const r = await connector.check!({ recipient: fx.unknown, documentType: fx.documentType, livemode }, host());
        expect(r).toMatchObject({ known: false, canReceive: false });
      });

      it('check: a known participant can receive a type it accepts, and lists its types', async () => {
        const r = await connector.check!({ recipient: fx.known, documentType: fx.documentType, livemode }, host());
        expect(r).toMatchObject({ known: true, canReceive: true });
        expect(r.documentTypes).toContain(fx.documentType);
      });
    }

    if (caps.send) {
      it('send: answers one of the SDK outcomes (a rejection carries a code), and a handed-over message can be followed', async () => {
        const h = host();
        await connector.start?.(h);
        try {
          const r = await connector.send!(sampleMessage(fx.known, fx.documentType, 1, livemode), h);
          expect(['delivered', 'accepted', 'rejected', 'transient']).toContain(r.outcome);
          if (r.outcome === 'rejected') expect(typeof r.errorCode).toBe('string');
          if ((r.outcome === 'delivered' || r.outcome === 'accepted') && caps.status) {
            expect(typeof r.messageId).toBe('string');
            const s = await connector.status!({ messageId: r.messageId, livemode }, h);
            expect(['delivered', 'pending', 'rejected']).toContain(s.outcome);
          }
        } finally {
          await connector.stop?.(h);
        }
      });
    }

    if (caps.report) {
      it('report: files a report once; the same report id again answers the first filing', async () => {
        const h = host();
        await connector.start?.(h);
        try {
          const msg = sampleReport(livemode);
          const first = await connector.report!(msg, h);
          expect(['accepted', 'rejected', 'transient']).toContain(first.outcome);
          if (first.outcome === 'rejected') expect(typeof first.errorCode).toBe('string');
          if (first.outcome === 'accepted') {
            expect(first.reportId).toBe(msg.reportId);
            expect(typeof first.networkReportId).toBe('string');
            const again = await connector.report!({ ...msg, payload: { ...msg.payload, content: Buffer.from('<Report changed="1"/>').toString('base64') } }, h);
            expect(again).toEqual(first);
          }
        } finally {
          await connector.stop?.(h);
        }
      });
    }

    if (fx.receiveTwice) {
      it('receive: the same network message handed over twice is stored once, and both hand-offs are acknowledged', async () => {
        const h = host();
        await connector.start?.(h);
        try {
          await fx.receiveTwice!(h, connector);
        } finally {
          await connector.stop?.(h);
        }
        expect(h.inboxed).toHaveLength(1);
        expect(h.acceptCalls.length).toBeGreaterThanOrEqual(2);
        expect(new Set(h.acceptCalls.map((d) => d.messageId))).toEqual(new Set([h.inboxed[0]!.messageId]));
        expect(h.inboxed[0]).toMatchObject({ type: fx.documentType, livemode: expect.any(Boolean) });
      });
    }

    if (fx.secrets) {
      it('never logs a secret', async () => {
        const h = host();
        await connector.start?.(h);
        if (caps.send) await connector.send!(sampleMessage(fx.known, fx.documentType, 1, livemode), h).catch(() => undefined);
        await h.runTimers().catch(() => undefined);
        await connector.stop?.(h);
        for (const value of Object.values(fx.secrets!)) expect(h.logged.join('\n')).not.toContain(value);
      });
    }
  });
}
