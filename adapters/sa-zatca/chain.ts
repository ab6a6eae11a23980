/**
 * The EGS unit's invoice chain: its counter (ICV) and the hash of its last invoice (the next one's
 * PIH), and the invoices issued but not yet answered by ZATCA.
 *
 * Where it lives. The chain belongs to the EGS unit — the device ZATCA onboarded, one CSID — not to
 * a document or a company, and the connector has no database. The smallest sound home is a state
 * file of the unit in a directory the deployment keeps (option `stateDir`, a persistent volume):
 * - written atomically (a temporary file renamed over the old one: a crash leaves the old or the
 *   new state, never half of one), before the invoice leaves us, so a restart continues the chain;
 * - one writer: the chain is sequential by definition, so each EGS unit is served by one adapter
 *   replica (ZATCA ties a CSID to one device anyway); within the process, issues of one unit queue;
 * - an issued invoice stays in the file until ZATCA's answer is final, so a re-send (transient
 *   failure, a restart) submits the same bytes — same UUID, ICV and PIH — and the chain has no hole.
 * An invoice ZATCA rejected stays in the chain (its hash is the next PIH: the EGS issued it).
 * A host port for durable connector state (a key-value store with compare-and-set, backed by the
 * platform's database) would lift the one-replica rule; the SDK has none yet.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
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

interface ChainState {
  egsUnit: string;
  icv: number;
  pih: string;
  pending: IssuedInvoice[];
}

/** Invoices issued and unanswered at most; past it the unit stops issuing (ZATCA unreachable for long). */
const MAX_PENDING = 10_000;

const queues = new Map<string, Promise<unknown>>();

export class InvoiceChain {
  private readonly file: string;
  private readonly egsUnit: string;

  constructor(stateDir: string, egsUnit: string) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(egsUnit)) throw new Error(`egsUnit "${egsUnit}" must be 1 to 64 letters, digits, dot, dash or underscore`);
    mkdirSync(stateDir, { recursive: true });
    this.file = join(stateDir, `zatca-chain-${egsUnit}.json`);
    this.egsUnit = egsUnit;
  }

  private read(): ChainState {
    if (!existsSync(this.file)) return { egsUnit: this.egsUnit, icv: 0, pih: FIRST_PIH, pending: [] };
    const state = JSON.parse(readFileSync(this.file, 'utf8')) as ChainState;
    if (state.egsUnit !== this.egsUnit || !Number.isSafeInteger(state.icv) || typeof state.pih !== 'string' || !Array.isArray(state.pending)) {
      throw new Error(`${this.file} is not this EGS unit's chain state`);
    }
    return state;
  }

  private write(state: ChainState): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  /** Runs `fn` alone for this unit's file (in this process). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const before = queues.get(this.file) ?? Promise.resolve();
    const run = before.then(fn, fn);
    queues.set(this.file, run.catch(() => undefined));
    return run;
  }

  /** The counter and PIH the next invoice takes (for status pages and tests). */
  head(): { icv: number; pih: string; pending: number } {
    const s = this.read();
    return { icv: s.icv, pih: s.pih, pending: s.pending.length };
  }

  /**
   * The document's issued invoice: the one already issued for it (a re-send), or a new one made by
   * `make` with the next ICV and the PIH, recorded (and the chain advanced) before it is returned.
   */
  issue(documentId: string, make: (next: { icv: number; pih: string }) => Promise<Omit<IssuedInvoice, 'documentId' | 'icv'>>): Promise<{ invoice: IssuedInvoice; resent: boolean }> {
    return this.exclusive(async () => {
      const state = this.read();
      const known = state.pending.find((p) => p.documentId === documentId);
      if (known) return { invoice: known, resent: true };
      if (state.pending.length >= MAX_PENDING) throw new Error(`EGS unit ${this.egsUnit} has ${MAX_PENDING} invoices ZATCA has not answered`);
      const icv = state.icv + 1;
      const invoice: IssuedInvoice = { documentId, icv, ...(await make({ icv, pih: state.pih })) };
      this.write({ ...state, icv, pih: invoice.hash, pending: [...state.pending, invoice] });
      return { invoice, resent: false };
    });
  }

  /** The unanswered invoice of this UUID (a status poll). */
  pending(uuid: string): IssuedInvoice | undefined {
    return this.read().pending.find((p) => p.uuid === uuid);
  }

  /** ZATCA answered for good (cleared, reported, rejected): the invoice leaves the pending list. */
  settle(uuid: string): Promise<void> {
    return this.exclusive(async () => {
      const state = this.read();
      if (state.pending.some((p) => p.uuid === uuid)) this.write({ ...state, pending: state.pending.filter((p) => p.uuid !== uuid) });
    });
  }
}
