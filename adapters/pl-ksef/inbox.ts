/**
 * Receiving from KSeF (pobieranie-faktur.md, przyrostowe-pobieranie-faktur.md): the invoices where the
 * authenticated NIP is the buyer (`subjectType: Subject2`), asked by their permanent-storage date from
 * a high-water mark, oldest first, in pages of `inboxPageSize` (KSeF: 10–250) and at most
 * `inboxMaxPages` pages per poll. Each is downloaded by its KSeF number, its SHA-256 checked against
 * the metadata's hash, read into the canonical model (mappings/ksef-fa3, reverse) and handed to
 * `host.inbound.accept` with the KSeF number as message id. The mark moves past an invoice only
 * once accept resolved, so a failure stops the poll and the next one starts from there; an invoice
 * seen again (the mark is inclusive) is answered as a duplicate, never stored twice.
 */
import { createHash } from 'node:crypto';
import type { ConnectorHost, InboundDocument } from '../sdk/index.ts';
import { authorised, contextNip, environmentOf, jsonOf } from './client.ts';
import type { Outcome } from './documents.ts';

/** Where the document work runs (host.workers). */
const DOCUMENTS = new URL('./documents.ts', import.meta.url).href;

/** Largest invoice file we download: KSeF's own limit with attachments is 3 MB. */
const MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024;
/** KSeF numbers remembered per host, so the inclusive mark does not ask accept twice for the same one. */
const MAX_SEEN = 10_000;

interface InvoiceMetadata {
  ksefNumber: string;
  invoiceNumber?: string;
  issueDate?: string;
  permanentStorageDate?: string;
  acquisitionDate?: string;
  invoiceHash?: string;
  invoiceType?: string;
  seller?: { nip?: string; name?: string | null };
  buyer?: { name?: string | null };
}
interface InboxState { mark?: string; seen: Set<string> }

const states = new WeakMap<ConnectorHost, InboxState>();
function stateOf(host: ConnectorHost): InboxState {
  let s = states.get(host);
  if (!s) { s = { seen: new Set() }; states.set(host, s); }
  return s;
}

const clamp = (v: unknown, lo: number, hi: number, dflt: number) => Math.min(hi, Math.max(lo, Number.isFinite(Number(v)) ? Number(v) : dflt));

/** One poll; resolves when it has handed over what it could. Failures are logged and retried by the next poll. */
export async function pollInbox(host: ConnectorHost): Promise<void> {
  const state = stateOf(host);
  const livemode = environmentOf(host) === 'prod';
  const nip = contextNip(host);
  const recipient = await host.directory.lookup({ peppolId: `9945:PL${nip}`, country: 'PL' }, livemode);
  if (!recipient) {
    host.log.warn('pl-ksef: no company of this platform has the configured NIP; nothing is fetched', { nip, livemode });
    return;
  }
  const pageSize = clamp(host.config.inboxPageSize, 10, 250, 100);
  const maxPages = clamp(host.config.inboxMaxPages, 1, 100, 10);
  const from = state.mark ?? new Date(host.clock.now().getTime() - clamp(host.config.inboxLookbackMs, 0, 90 * 86_400_000, 7 * 86_400_000)).toISOString();

  for (let page = 0; page < maxPages; page++) {
    const res = await authorised(host, 'POST', `/invoices/query/metadata?sortOrder=Asc&pageOffset=${page}&pageSize=${pageSize}`, {
      json: { subjectType: 'Subject2', dateRange: { dateType: 'PermanentStorage', from } },
    });
    if (res.status !== 200) {
      host.log.warn('pl-ksef: the invoice query was not answered; the next poll asks again', { status: res.status });
      return;
    }
    const body = jsonOf<{ invoices?: InvoiceMetadata[]; hasMore?: boolean }>(res);
    for (const meta of (body?.invoices ?? []).slice(0, pageSize)) {
      if (!meta.ksefNumber) continue;
      if (!state.seen.has(meta.ksefNumber)) {
        const ok = await fetchOne(host, meta, livemode, recipient);
        if (!ok) return;
        state.seen.add(meta.ksefNumber);
        if (state.seen.size > MAX_SEEN) state.seen.delete(state.seen.values().next().value!);
      }
      if (meta.permanentStorageDate && (!state.mark || meta.permanentStorageDate > state.mark)) state.mark = meta.permanentStorageDate;
    }
    if (!body?.hasMore) return;
  }
}

type Recipient = NonNullable<Awaited<ReturnType<ConnectorHost['directory']['lookup']>>>;

/** Downloads one invoice and hands it over; false when the poll should stop here. */
async function fetchOne(host: ConnectorHost, meta: InvoiceMetadata, livemode: boolean, recipient: Recipient): Promise<boolean> {
  const res = await authorised(host, 'GET', `/invoices/ksef/${encodeURIComponent(meta.ksefNumber)}`, { accept: 'application/xml' });
  if (res.status !== 200 || res.body.length === 0 || res.body.length > MAX_DOWNLOAD_BYTES) {
    host.log.warn('pl-ksef: an invoice could not be downloaded; the next poll tries again', { ksefNumber: meta.ksefNumber, status: res.status, bytes: res.body.length });
    return false;
  }
  const hash = createHash('sha256').update(res.body).digest('base64');
  if (meta.invoiceHash && hash !== meta.invoiceHash) {
    host.log.warn('pl-ksef: a downloaded invoice does not match its KSeF hash; not stored', { ksefNumber: meta.ksefNumber });
    return false;
  }
  const read = await host.workers.run<Outcome<{ normalized: Record<string, unknown>; ubl?: string }>>(DOCUMENTS, 'readReceived', [new Uint8Array(res.body)], res.body.length);
  if (!read.ok) host.log.warn('pl-ksef: a received invoice could not be read into the canonical model; stored as FA(3) only', { ksefNumber: meta.ksefNumber, error: read.message });
  const doc = inboundDocument(host, meta, res.body, livemode, recipient, read.ok ? read : undefined);
  const { documentId, duplicate } = await host.inbound.accept(doc);
  host.log.info('pl-ksef: invoice received', { ksefNumber: meta.ksefNumber, documentId, duplicate });
  return true;
}

/**
 * What the platform stores: the FA(3) bytes as the legal original; the canonical invoice read from
 * them and, when the canonical makes a UBL invoice, that UBL as the structured XML the buyer reads
 * and the platform validates. A FA(3) our reverse mapping cannot read is stored all the same, with
 * its number from KSeF's metadata.
 */
function inboundDocument(host: ConnectorHost, meta: InvoiceMetadata, bytes: Buffer, livemode: boolean, recipient: Recipient, read: { normalized: Record<string, unknown>; ubl?: string } | undefined): InboundDocument {
  const normalized = read?.normalized;
  const xml = read?.ubl;
  const correction = /^Kor/i.test(meta.invoiceType ?? '');
  const sellerNip = meta.seller?.nip ?? meta.ksefNumber.slice(0, 10);
  return {
    messageId: meta.ksefNumber,
    livemode,
    type: correction ? 'credit-note' : 'invoice',
    number: meta.invoiceNumber ?? (normalized?.number as string | undefined) ?? null,
    sender: { peppolId: `9945:PL${sellerNip}`, name: meta.seller?.name ?? null },
    recipient: { peppolId: recipient.peppolId, organizationId: recipient.organizationId, companyId: recipient.companyId, name: recipient.name },
    payload: {
      content: bytes.toString('base64'),
      contentType: 'application/xml',
      filename: `${meta.ksefNumber}.xml`,
      ...(xml ? { xml, syntax: 'ubl-2.1' } : {}),
      ...(normalized ? { normalized } : {}),
    },
    evidence: {
      messageId: meta.ksefNumber,
      exchangedAt: meta.acquisitionDate ?? meta.permanentStorageDate ?? host.clock.now().toISOString(),
      payloadSha256: createHash('sha256').update(bytes).digest('hex'),
      details: { ksefNumber: meta.ksefNumber, invoiceHash: meta.invoiceHash ?? '', authority: 'KSeF', environment: environmentOf(host) },
    },
  };
}
