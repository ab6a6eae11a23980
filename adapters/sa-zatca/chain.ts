/**
 * The EGS unit's invoice chain: its counter (ICV) and the hash of its last invoice (the next one's
 * PIH), and the invoices issued but not yet answered by ZATCA.
 *
 * Where it lives. The chain belongs to the EGS unit — the device ZATCA onboarded, one CSID — not to
 * a document or a company. It lives in the host's durable state (SDK 2.5 `host.state`, the
 * platform's database), shared by every replica of the connector, under `zatca/<unit>/`:
 * - `head`: `{icv, pih, pending, last}` — the counter, the next PIH, how many invoices are unanswered
 *   and the last invoice issued (recorded with the head, in the same write);
 * - `invoice/<documentId>`: an issued invoice, or a tombstone once ZATCA answered it for good;
 * - `uuid/<uuid>`: which document an invoice UUID belongs to (a status poll names the UUID).
 *
 * Issuing is compare-and-set on the head: read it, stamp the next invoice (ICV + 1, PIH), write the
 * head with that invoice as `last` at the version read. Two replicas issuing at once: one write wins,
 * the other re-reads and stamps again with the new head, so no ICV is given twice and each PIH is
 * the previous invoice's hash. Before a head replaces its `last`, that invoice is copied to its own
 * key, so an issued invoice is always findable (the head or its key): a re-send (transient failure,
 * a restart, another replica) submits the same bytes — same UUID, ICV and PIH — and the chain has no
 * hole. The invoice is recorded before it leaves us; nothing is held open during the call to ZATCA.
 * An invoice ZATCA rejected stays in the chain (its hash is the next PIH: the EGS issued it).
 * Settling writes a tombstone rather than deleting, so a replica that read an old head cannot bring
 * a settled invoice back when it copies `last` out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectorError, type ConnectorState, type StateEntry } from '../sdk/index.ts';
import { FIRST_PIH, type ZatcaInvoiceKind } from '../../mappings/zatca/index.ts';

/** An invoice the unit issued and ZATCA has not answered for good. */
export interface IssuedInvoice {
  documentId: string;
  uuid: string;
  icv: number;
  kind: ZatcaInvoiceKind;
  /** Its hash (base64): the PIH of the next invoice. */
  hash: string;
  /** The stamped XML, base64. */
  xml: string;
  qr: string;
  /** When it was issued (ISO 8601): a simplified invoice must be reported within 24 hours of it. */
  issuedAt: string;
}

interface ChainHead {
  egsUnit: string;
  icv: number;
  pih: string;
  /** Invoices issued and not answered for good (kept by issue and settle). */
  pending: number;
  last: IssuedInvoice | null;
}

/** What an invoice key holds once ZATCA answered the invoice for good. */
interface Settled { settled: true; uuid: string }

/** Invoices issued and unanswered at most; past it the unit stops issuing (ZATCA unreachable for long). */
const MAX_PENDING = 10_000;
/** Lost compare-and-sets one write may take (another replica moved the chain) before it gives up: the send is then retried later. */
const MAX_ATTEMPTS = 40;

const isSettled = (v: IssuedInvoice | Settled): v is Settled => (v as Settled).settled === true;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.floor(Math.random() * Math.min(20, 2 * attempt))));

export class InvoiceChain {
  private readonly prefix: string;
  private readonly egsUnit: string;
  /** Writes of this chain object queue (one replica); replicas meet only at the compare-and-set. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Set until the legacy state file (option `stateDir`) has been looked at once. */
  private legacyStateDir: string | undefined;

  private readonly state: ConnectorState;

  constructor(state: ConnectorState, egsUnit: string, options: { legacyStateDir?: string } = {}) {
    this.state = state;
    this.legacyStateDir = options.legacyStateDir;
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(egsUnit)) throw new Error(`egsUnit "${egsUnit}" must be 1 to 64 letters, digits, dot, dash or underscore`);
    this.egsUnit = egsUnit;
    this.prefix = `zatca/${egsUnit}/`;
  }

  private get headKey(): string { return `${this.prefix}head`; }
  private invoiceKey(documentId: string): string {
    const key = `${this.prefix}invoice/${encodeURIComponent(documentId)}`;
    if (key.length > 200) throw ConnectorError.permanent('ZATCA_INVALID_INVOICE', `document id ${documentId.slice(0, 40)}… is too long for the EGS unit's chain`);
    return key;
  }
  private uuidKey(uuid: string): string { return `${this.prefix}uuid/${encodeURIComponent(uuid)}`; }

  private async readHead(): Promise<{ head: ChainHead; version: number | null }> {
    const e = await this.state.get<ChainHead>(this.headKey);
    if (!e) return { head: { egsUnit: this.egsUnit, icv: 0, pih: FIRST_PIH, pending: 0, last: null }, version: null };
    const h = e.value;
    if (h?.egsUnit !== this.egsUnit || !Number.isSafeInteger(h.icv) || typeof h.pih !== 'string') throw new Error(`${this.headKey} is not this EGS unit's chain head`);
    return { head: h, version: e.version };
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The document's live invoice: the head's last, or its own key unless settled. */
  private async find(documentId: string, head: ChainHead): Promise<IssuedInvoice | null> {
    if (head.last?.documentId === documentId) return head.last;
    const e = await this.state.get<IssuedInvoice | Settled>(this.invoiceKey(documentId));
    return e && !isSettled(e.value) ? e.value : null;
  }

  /** Copies the head's last invoice to its own keys before the head moves past it (idempotent). */
  private async keep(invoice: IssuedInvoice): Promise<void> {
    await this.state.compareAndSet(this.uuidKey(invoice.uuid), null, { documentId: invoice.documentId });
    const key = this.invoiceKey(invoice.documentId);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const e = await this.state.get<IssuedInvoice | Settled>(key);
      // Already there, or settled meanwhile (the tombstone wins).
      if (e?.value.uuid === invoice.uuid) return;
      if (await this.state.compareAndSet(key, e?.version ?? null, invoice)) return;
    }
    throw new Error(`EGS unit ${this.egsUnit}: could not record invoice ${invoice.icv} under its document`);
  }

  /**
   * Moves a chain kept by an earlier version in a state file (`<stateDir>/zatca-chain-<unit>.json`)
   * into the host's state, once: only while the state has no head for the unit, so every replica may
   * call it at start. Answers whether it imported.
   */
  importStateFile(stateDir: string): Promise<boolean> {
    return this.exclusive(() => this.importFile(stateDir));
  }

  private async importFile(stateDir: string): Promise<boolean> {
    const file = join(stateDir, `zatca-chain-${this.egsUnit}.json`);
    if (!existsSync(file) || (await this.state.get(this.headKey))) return false;
    const old = JSON.parse(readFileSync(file, 'utf8')) as { egsUnit: string; icv: number; pih: string; pending: IssuedInvoice[] };
    if (old.egsUnit !== this.egsUnit || !Number.isSafeInteger(old.icv) || typeof old.pih !== 'string' || !Array.isArray(old.pending)) throw new Error(`${file} is not this EGS unit's chain state`);
    for (const invoice of old.pending) await this.keep(invoice);
    return this.state.compareAndSet(this.headKey, null, { egsUnit: this.egsUnit, icv: old.icv, pih: old.pih, pending: old.pending.length, last: null } satisfies ChainHead);
  }

  /** The counter and PIH the next invoice takes (for status pages and tests). */
  async head(): Promise<{ icv: number; pih: string; pending: number }> {
    const { head } = await this.readHead();
    return { icv: head.icv, pih: head.pih, pending: head.pending };
  }

  /**
   * The document's issued invoice: the one already issued for it (a re-send), or a new one made by
   * `make` with the next ICV and the PIH, recorded (and the chain advanced) before it is returned.
   * `make` may run more than once (another replica took the ICV first); only one result is kept.
   */
  issue(documentId: string, make: (next: { icv: number; pih: string }) => Promise<Omit<IssuedInvoice, 'documentId' | 'icv'>>): Promise<{ invoice: IssuedInvoice; resent: boolean }> {
    return this.exclusive(async () => {
      if (this.legacyStateDir) {
        await this.importFile(this.legacyStateDir);
        this.legacyStateDir = undefined;
      }
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const { head, version } = await this.readHead();
        const known = await this.find(documentId, head);
        if (known) return { invoice: known, resent: true };
        if (head.pending >= MAX_PENDING) throw new Error(`EGS unit ${this.egsUnit} has ${MAX_PENDING} invoices ZATCA has not answered`);
        if (head.last) await this.keep(head.last);
        const icv = head.icv + 1;
        const invoice: IssuedInvoice = { documentId, icv, ...(await make({ icv, pih: head.pih })) };
        const next: ChainHead = { egsUnit: this.egsUnit, icv, pih: invoice.hash, pending: head.pending + 1, last: invoice };
        if (await this.state.compareAndSet(this.headKey, version, next)) return { invoice, resent: false };
        await pause(attempt);
      }
      throw new Error(`EGS unit ${this.egsUnit}: the chain moved ${MAX_ATTEMPTS} times while issuing; try again`);
    });
  }

  /** The unanswered invoice of this UUID (a status poll). */
  async pending(uuid: string): Promise<IssuedInvoice | undefined> {
    const { head } = await this.readHead();
    if (head.last?.uuid === uuid) return head.last;
    const owner = await this.state.get<{ documentId: string }>(this.uuidKey(uuid));
    if (!owner) return undefined;
    const e = await this.state.get<IssuedInvoice | Settled>(this.invoiceKey(owner.value.documentId));
    return e && !isSettled(e.value) && e.value.uuid === uuid ? e.value : undefined;
  }

  /** ZATCA answered for good (cleared, reported, rejected): the invoice leaves the unanswered ones. */
  settle(uuid: string): Promise<void> {
    return this.exclusive(async () => {
      const invoice = await this.pending(uuid);
      if (!invoice) return;
      // 1. The tombstone: whoever writes it settles the invoice (and counts it off the head).
      const key = this.invoiceKey(invoice.documentId);
      let settledHere = false;
      for (let attempt = 1; !settledHere; attempt++) {
        if (attempt > MAX_ATTEMPTS) throw new Error(`EGS unit ${this.egsUnit}: could not settle invoice ${invoice.icv}`);
        const e: StateEntry<IssuedInvoice | Settled> | null = await this.state.get(key);
        if (e && (isSettled(e.value) || e.value.uuid !== uuid)) break;
        settledHere = await this.state.compareAndSet(key, e?.version ?? null, { settled: true, uuid } satisfies Settled);
      }
      // 2. The head forgets it as its last and counts it off.
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const { head, version } = await this.readHead();
        const isLast = head.last?.uuid === uuid;
        if (!isLast && !settledHere) break;
        const next: ChainHead = { ...head, last: isLast ? null : head.last, pending: settledHere ? Math.max(0, head.pending - 1) : head.pending };
        if (await this.state.compareAndSet(this.headKey, version, next)) break;
        await pause(attempt);
      }
      const owner = await this.state.get(this.uuidKey(uuid));
      if (owner) await this.state.delete(this.uuidKey(uuid), owner.version);
    });
  }
}
