/**
 * file-drop: the example connector of the SDK README. Each outbound document is written to a
 * folder; XML invoices dropped into another folder are read on a timer and handed to the platform;
 * reports are filed as files under `reports/` of the outbox folder, once per report id.
 * Written against adapters/sdk only.
 */
import { createHash } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CONNECTOR_API_VERSION, ConnectorError, type CheckRequest, type CheckResult, type Connector, type ConnectorHost,
  type OutboundMessage, type ReportMessage, type ReportResult, type SendResult, type StatusRequest, type StatusResult,
} from '../sdk/index.ts';

const DOCUMENT_TYPES = ['invoice', 'credit-note'] as const;
/** Inbound files read per poll at most. */
const FILES_PER_POLL = 100;
/** Inbound files larger than this are set aside, not read. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

function participantsOf(host: ConnectorHost): Set<string> {
  return new Set(String(host.config.participants ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

function modeDir(host: ConnectorHost, option: 'outboxDir' | 'inboxDir', livemode: boolean): string {
  return join(String(host.config[option]), livemode ? 'live' : 'test');
}

/** The "authority's reference" of a filed report: derived from the bytes filed first. */
function networkReportIdOf(bytes: Buffer): string {
  return `file-drop:${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}`;
}

/** One inbound file: found, read, handed over, then moved to `done/` (the acknowledgement). */
async function receiveFile(host: ConnectorHost, dir: string, name: string, livemode: boolean): Promise<void> {
  const path = join(dir, name);
  const bytes = await readFile(path);
  if (bytes.length > MAX_FILE_BYTES) { await rename(path, join(dir, 'rejected', name)); host.log.warn(`file-drop: ${name} is larger than ${MAX_FILE_BYTES} bytes; moved to rejected/`); return; }
  const t = host.translators;
  const format = t.detectFormat(bytes).format;
  if (format !== 'ubl' && format !== 'cii') { await rename(path, join(dir, 'rejected', name)); host.log.warn(`file-drop: ${name} is neither UBL nor CII; moved to rejected/`); return; }
  let parsed;
  try {
    parsed = format === 'ubl' ? t.ublToCanonical(bytes) : t.ciiToCanonical(bytes);
  } catch (err) {
    await rename(path, join(dir, 'rejected', name));
    host.log.warn(`file-drop: ${name} could not be read (${(err as Error).message}); moved to rejected/`);
    return;
  }
  const { canonical } = parsed;
  const address = canonical.buyer.electronicAddress;
  const peppolId = address ? `${address.scheme}:${address.value}` : undefined;
  const entry = peppolId ? await host.directory.lookup({ peppolId }, livemode) : null;
  if (!entry) { await rename(path, join(dir, 'rejected', name)); host.log.warn(`file-drop: ${name} is for ${peppolId ?? 'nobody'}, not a company of this platform; moved to rejected/`); return; }
  const seller = canonical.seller.electronicAddress;
  // The network message id: the file's name and content, so the same drop twice is one document.
  const messageId = `${name}:${createHash('sha256').update(bytes).digest('hex')}`;
  await host.inbound.accept({
    messageId,
    livemode,
    type: canonical.kind,
    number: canonical.number ?? null,
    sender: { peppolId: seller ? `${seller.scheme}:${seller.value}` : null, name: canonical.seller.name ?? null },
    recipient: { peppolId: entry.peppolId, organizationId: entry.organizationId, companyId: entry.companyId, name: entry.name },
    payload: { content: bytes.toString('base64'), contentType: 'application/xml', filename: name, xml: bytes.toString('utf8'), syntax: parsed.syntax, normalized: canonical as unknown as Record<string, unknown> },
  });
  // Stored: only now is the file acknowledged (moved away). A crash before this line means it is read again.
  await rename(path, join(dir, 'done', name));
}

async function poll(host: ConnectorHost, livemode: boolean): Promise<void> {
  const dir = modeDir(host, 'inboxDir', livemode);
  const names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile() && !d.name.startsWith('.')).map((d) => d.name).sort().slice(0, FILES_PER_POLL);
  for (const name of names) {
    try {
      await receiveFile(host, dir, name, livemode);
    } catch (err) {
      host.log.error(`file-drop: ${name} stays for the next poll: ${(err as Error).message}`);
    }
  }
}

const fileDrop = {
  manifest: {
    id: 'file-drop',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'File drop',
    description: 'Writes each outbound document to a folder and reads inbound XML invoices dropped into another one',
    modes: ['test', 'live'],
    countries: ['*'],
    documentTypes: DOCUMENT_TYPES,
    capabilities: { send: true, pushReceive: false, pollReceive: true, status: true, report: true, discover: true },
    options: {
      outboxDir: { type: 'string', description: 'Folder outbound documents are written to (test/ and live/ below it)', required: true },
      inboxDir: { type: 'string', description: 'Folder inbound files are read from (test/ and live/ below it; done/ and rejected/ inside each)', required: true },
      participants: { type: 'string', description: 'Comma-separated Peppol ids reached through the folder', required: true },
      pollIntervalMs: { type: 'number', description: 'How often the inbox folders are read', default: 1000 },
    },
  },

  async start(host: ConnectorHost): Promise<void> {
    for (const livemode of [false, true]) {
      await mkdir(join(modeDir(host, 'outboxDir', livemode), 'reports'), { recursive: true });
      for (const sub of ['done', 'rejected']) await mkdir(join(modeDir(host, 'inboxDir', livemode), sub), { recursive: true });
    }
    host.scheduler.every(Number(host.config.pollIntervalMs ?? 1000), async () => {
      await poll(host, false);
      await poll(host, true);
    });
  },

  async check(req: CheckRequest, host: ConnectorHost): Promise<CheckResult> {
    const id = req.recipient.peppolId?.toLowerCase();
    if (!id || !participantsOf(host).has(id)) return { known: false, canReceive: false, documentTypes: [] };
    return { known: true, canReceive: (DOCUMENT_TYPES as readonly string[]).includes(req.documentType), documentTypes: [...DOCUMENT_TYPES], peppolId: req.recipient.peppolId! };
  },

  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    const id = msg.recipient.peppolId?.toLowerCase();
    if (!id || !participantsOf(host).has(id)) throw ConnectorError.permanent('FILE_DROP_UNKNOWN_RECIPIENT', `${msg.recipient.peppolId ?? msg.recipient.companyId} is not reached through this folder`);
    const dir = modeDir(host, 'outboxDir', msg.livemode);
    const extension = msg.payload.pdf ? 'pdf' : msg.payload.contentType.includes('xml') ? 'xml' : 'bin';
    const name = `${msg.documentId}.${extension}`;
    // Written under a temporary name, then renamed: a reader never sees half a file. A re-send overwrites.
    await writeFile(join(dir, `.${name}.tmp`), Buffer.from(msg.payload.content, 'base64'));
    await rename(join(dir, `.${name}.tmp`), join(dir, name));
    return { outcome: 'delivered', messageId: name };
  },

  async status(_req: StatusRequest): Promise<StatusResult> {
    return { outcome: 'delivered' };
  },

  async report(msg: ReportMessage, host: ConnectorHost): Promise<ReportResult> {
    const bytes = Buffer.from(msg.payload.content, 'base64');
    if (!bytes.length) throw ConnectorError.permanent('FILE_DROP_EMPTY_REPORT', `report ${msg.reportId} has no content`);
    if (!/^[A-Za-z0-9_.-]{1,200}$/.test(msg.reportId) || msg.reportId.startsWith('.')) throw ConnectorError.permanent('FILE_DROP_BAD_REPORT_ID', `report id ${JSON.stringify(msg.reportId)} cannot name a file`);
    const dir = join(modeDir(host, 'outboxDir', msg.livemode), 'reports');
    await mkdir(dir, { recursive: true });
    const final = join(dir, `${msg.reportId}.${msg.payload.contentType.includes('xml') ? 'xml' : msg.payload.contentType.includes('json') ? 'json' : 'bin'}`);
    const tmp = join(dir, `.${msg.reportId}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(tmp, bytes);
    try {
      // link() creates the name only if it is free: of two filings of one report, exactly one lands.
      await link(tmp, final);
      return { outcome: 'accepted', reportId: msg.reportId, networkReportId: networkReportIdOf(bytes) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Filed before: the first filing's answer.
      return { outcome: 'accepted', reportId: msg.reportId, networkReportId: networkReportIdOf(await readFile(final)) };
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  },
} satisfies Connector;

export default fileDrop;
