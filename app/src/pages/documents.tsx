/** Documents in and out: filters and search over GET /v1/documents, sending one invoice or a batch with its delivery progress. */
import { useState } from 'preact/hooks';
import { call, describeError, type Body, type Ok, type Query } from '../api.ts';
import { Badge, ErrorBox, Pager, Progress, Section, formatAmount, formatTime, useLoad } from '../ui.tsx';
import { navigate } from '../router.ts';

type Filters = Query<'/v1/documents', 'get'>;
type SendBody = Body<'/v1/documents/send', 'post'>;
type Company = Ok<'/v1/me/company', 'get'>;
const STATUSES = ['sent', 'received', 'under_review', 'approved', 'partially_paid', 'paid', 'disputed', 'rejected', 'duplicate', 'stored', 'draft'] as const;
const TYPES = ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'quote'] as const;

export function DocumentsPage() {
  const [filters, setFilters] = useState<Filters>({ limit: 25 });
  const [cursors, setCursors] = useState<string[]>([]);
  const list = useLoad(() => call('get', '/v1/documents', { query: { ...filters, ...(cursors.length ? { cursor: cursors[cursors.length - 1] } : {}) } }), [JSON.stringify(filters), cursors.join()]);

  const onFilter = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next: Record<string, string | number> = { limit: 25 };
    for (const [k, v] of form.entries()) if (typeof v === 'string' && v.trim()) next[k] = v.trim();
    setCursors([]);
    setFilters(next as Filters);
  };

  return (
    <div class="page">
      <h1>Documents</h1>
      <SendInvoice onSent={list.reload} />
      <Section title="In and out" testId="documents-list">
        <form class="filters" onSubmit={onFilter} data-testid="document-filters">
          <input name="search" placeholder="Search number, party, text…" aria-label="Search" />
          <select name="direction" aria-label="Direction"><option value="">In and out</option><option value="incoming">Incoming</option><option value="outgoing">Outgoing</option></select>
          <select name="status" aria-label="Status"><option value="">Any status</option>{STATUSES.map((s) => <option value={s}>{s}</option>)}</select>
          <select name="type" aria-label="Type"><option value="">Any type</option>{TYPES.map((t) => <option value={t}>{t}</option>)}</select>
          <label>From <input name="from" type="date" /></label>
          <label>To <input name="to" type="date" /></label>
          <button type="submit">Filter</button>
        </form>
        <ErrorBox error={list.error} />
        <table>
          <thead><tr><th>Number</th><th>Direction</th><th>Type</th><th>From → To</th><th>Amount</th><th>Status</th><th>Delivery</th><th>Created</th></tr></thead>
          <tbody>
            {list.data?.data.map((d) => (
              <tr key={d.id} class="link" onClick={() => navigate(`#/documents/${d.id}`)} data-testid="document-row">
                <td><a href={`#/documents/${d.id}`}>{d.number ?? d.id}</a></td>
                <td>{d.direction === 'incoming' ? '↓ in' : '↑ out'}</td>
                <td>{d.type}</td>
                <td>{d.from?.name ?? d.from?.peppolId ?? '—'} → {d.to.name ?? d.to.peppolId ?? '—'}</td>
                <td class="num">{formatAmount(d.totalAmount, d.currency)}</td>
                <td><Badge value={d.status} /></td>
                <td><Badge value={d.deliveryStatus} /></td>
                <td>{formatTime(d.createdAt)}</td>
              </tr>
            ))}
            {list.data && !list.data.data.length && <tr><td colSpan={8} class="empty">No documents match.</td></tr>}
          </tbody>
        </table>
        <Pager hasMore={!!list.data?.hasMore} onNext={() => list.data?.cursor && setCursors([...cursors, list.data.cursor])} onFirst={cursors.length ? () => setCursors([]) : undefined} />
      </Section>
    </div>
  );
}

function invoiceOf(company: Company, to: string, number: string, buyer: { name: string; country: string }, amount: number): SendBody {
  const today = new Date();
  const due = new Date(today.getTime() + 30 * 86_400_000);
  return {
    type: 'invoice', format: 'json', to,
    document: {
      number,
      issueDate: today.toISOString().slice(0, 10),
      dueDate: due.toISOString().slice(0, 10),
      buyerReference: 'DASHBOARD',
      seller: { name: company.name, ...(company.vatNumber ? { vatNumber: company.vatNumber } : {}), ...(company.address ? { address: company.address } : {}) },
      // The buyer's electronic address is the Peppol id it is sent to (BT-49), its country is required (BT-55).
      buyer: { name: buyer.name, peppolId: to, address: { country: buyer.country } },
      lines: [{ description: 'Services', quantity: 1, unitPrice: amount, vatRate: 21 }],
    },
  } as SendBody;
}

const PENDING = new Set(['pending']);

/** One invoice, or a batch of them, to a Peppol participant; a batch shows how many have been delivered so far. */
function SendInvoice({ onSent }: { onSent: () => void }) {
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<string>();
  const [progress, setProgress] = useState<{ done: number; total: number; failed: number }>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const to = String(form.get('to') ?? '').trim();
    const count = Math.min(20, Math.max(1, Number(form.get('count') ?? 1)));
    const base = String(form.get('number') ?? '').trim() || `INV-${Date.now()}`;
    const amount = Number(form.get('amount') ?? 100);
    const buyer = { name: String(form.get('buyer') ?? '').trim() || 'Customer', country: String(form.get('country') ?? '').trim().toUpperCase() || 'BE' };
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    setProgress(undefined);
    try {
      const company = await call('get', '/v1/me/company');
      if (count === 1) {
        const sent = await call('post', '/v1/documents/send', { body: invoiceOf(company, to, base, buyer, amount) });
        setResult(`Sent ${sent.number ?? sent.id}: ${sent.deliveryStatus}`);
        onSent();
        return;
      }
      const batch = await call('post', '/v1/documents/send/batch', { body: { documents: Array.from({ length: count }, (_, i) => invoiceOf(company, to, `${base}-${i + 1}`, buyer, amount)) } as Body<'/v1/documents/send/batch', 'post'> });
      const ids = batch.results.flatMap((r) => (r.status === 'created' && r.document && 'id' in r.document ? [r.document.id] : []));
      const refused = batch.results.length - ids.length;
      setProgress({ done: 0, total: count, failed: refused });
      // Delivery runs after the answer: follow each document until it leaves `pending` (bounded: 2 minutes).
      const open = new Set(ids);
      let failed = refused;
      const until = Date.now() + 120_000;
      while (open.size && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 500));
        for (const id of [...open]) {
          const doc = await call('get', '/v1/documents/{id}', { params: { id } });
          if (!PENDING.has(doc.deliveryStatus)) {
            open.delete(id);
            if (doc.deliveryStatus === 'failed') failed++;
          }
        }
        setProgress({ done: count - open.size, total: count, failed });
      }
      setResult(open.size ? `${open.size} still pending after 2 minutes` : `Batch done: ${count - failed} delivered, ${failed} failed`);
      onSent();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Send an invoice" testId="send-invoice">
      <form class="inline-form" onSubmit={submit}>
        <label>To (Peppol id) <input name="to" required placeholder="0208:0123456749" data-testid="send-to" /></label>
        <label>Number <input name="number" placeholder="INV-…" data-testid="send-number" /></label>
        <label>Buyer <input name="buyer" placeholder="Customer" /></label>
        <label>Buyer country <input name="country" defaultValue="BE" pattern="[A-Za-z]{2}" maxLength={2} size={3} /></label>
        <label>Amount <input name="amount" type="number" min="0.01" step="0.01" defaultValue="100" /></label>
        <label>How many <input name="count" type="number" min="1" max="20" defaultValue="1" data-testid="send-count" /></label>
        <button class="primary" type="submit" disabled={busy} data-testid="send-submit">{busy ? 'Sending…' : 'Send'}</button>
      </form>
      {progress && <Progress done={progress.done} total={progress.total} label={progress.failed ? `Delivered or failed (${progress.failed} failed)` : 'Delivered'} />}
      {result && <p class="note ok" role="status" data-testid="send-result">{result}</p>}
      <ErrorBox error={error} />
    </Section>
  );
}
