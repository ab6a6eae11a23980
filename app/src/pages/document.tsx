/**
 * One document: its fields with the validation findings that concern them, its representations
 * (original, XML, JSON, PDF, evidence), a rendered preview, its lifecycle as a timeline with the
 * moves allowed next as buttons, and the document actions (read, archive, note).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, call, describeError, fetchBlobUrl, type Body, type Ok } from '../api.ts';
import { ActionButton, Badge, ErrorBox, Section, Timeline, formatAmount, formatTime, useLoad } from '../ui.tsx';
import { fieldOfFinding, type DocumentField } from '../findings.ts';

type Doc = Ok<'/v1/documents/{id}', 'get'>;
type Finding = NonNullable<Doc['validation']>['findings'][number];
type LifecycleMove = Body<'/v1/documents/{id}/lifecycle', 'post'>;

const REPRESENTATIONS: Array<{ path: string; label: string }> = [
  { path: 'original', label: 'Original (as sent)' },
  { path: 'xml', label: 'XML' },
  { path: 'json', label: 'JSON' },
  { path: 'pdf', label: 'PDF' },
  { path: 'evidence', label: 'Evidence' },
];

export function DocumentPage({ id }: { id: string }) {
  const doc = useLoad(() => call('get', '/v1/documents/{id}', { params: { id } }), [id]);
  const lifecycle = useLoad(() => call('get', '/v1/documents/{id}/lifecycle', { params: { id } }), [id]);
  const d = doc.data;
  if (doc.error) return <div class="page"><ErrorBox error={doc.error} /></div>;
  if (!d) return <div class="page"><p>Loading…</p></div>;

  const findings = d.validation?.findings ?? [];
  const byField = new Map<DocumentField | 'document', Finding[]>();
  for (const f of findings) {
    const field = fieldOfFinding(f.location) ?? 'document';
    byField.set(field, [...(byField.get(field) ?? []), f]);
  }
  const row = (field: DocumentField, label: string, value: ComponentChildren) => (
    <tr data-field={field}>
      <th>{label}</th><td>{value}</td>
      <td class="findings">{(byField.get(field) ?? []).map((f) => <FindingNote finding={f} />)}</td>
    </tr>
  );

  return (
    <div class="page">
      <p><a href="#/documents">← Documents</a></p>
      <h1 data-testid="document-title">{d.type} {d.number ?? d.id} <Badge value={d.status} /> <Badge value={d.deliveryStatus} /></h1>
      <div class="columns">
        <Section title="Fields" testId="document-fields">
          <table class="fields">
            <tbody>
              {row('number', 'Number', d.number ?? '—')}
              {row('issueDate', 'Issue date', d.issueDate ?? '—')}
              {row('dueDate', 'Due date', d.dueDate ?? '—')}
              {row('currency', 'Currency', d.currency ?? '—')}
              {row('totalAmount', 'Total', formatAmount(d.totalAmount, d.currency))}
              {row('from', 'From', `${d.from?.name ?? '—'} (${d.from?.peppolId ?? '—'})`)}
              {row('to', 'To', `${d.to.name ?? '—'} (${d.to.peppolId ?? '—'})`)}
              {row('lines', 'Lines', 'see the JSON representation')}
              <tr><th>Direction</th><td>{d.direction}</td><td /></tr>
              <tr><th>Sent / delivered</th><td>{formatTime(d.sentAt)} / {formatTime(d.deliveredAt)}</td><td /></tr>
              {d.errorCode && <tr><th>Delivery error</th><td colSpan={2}><code>{d.errorCode}</code> {d.errorMessage}</td></tr>}
            </tbody>
          </table>
          <div data-testid="validation-summary">
            {d.validation
              ? <p>Validation on arrival: {d.validation.valid ? 'valid' : 'invalid'} · {d.validation.errors} errors · {d.validation.warnings} warnings · packs {d.validation.packs.join(', ') || '—'}</p>
              : <p class="hint">Validated before sending (no findings are kept for documents sent from here).</p>}
            {(byField.get('document') ?? []).map((f) => <FindingNote finding={f} />)}
          </div>
        </Section>
        <Section title="Lifecycle" testId="lifecycle">
          <ErrorBox error={lifecycle.error} />
          {lifecycle.data && <LifecycleView id={id} lifecycle={lifecycle.data} onMoved={() => { lifecycle.reload(); doc.reload(); }} />}
        </Section>
      </div>
      <Section title="Representations" testId="representations">
        <div class="buttons">{REPRESENTATIONS.map((r) => <Representation id={id} path={r.path} label={r.label} />)}</div>
      </Section>
      <Preview id={id} />
      <Section title="Actions and notes" testId="document-actions">
        <div class="buttons">
          <ActionButton label={d.read ? 'Mark unread' : 'Mark read'} run={async () => { await call('post', '/v1/documents/{id}/actions', { params: { id }, body: { action: d.read ? 'mark-unread' : 'mark-read' } }); doc.reload(); }} />
          <ActionButton label={d.archived ? 'Unarchive' : 'Archive'} run={async () => { await call('post', '/v1/documents/{id}/actions', { params: { id }, body: { action: d.archived ? 'unarchive' : 'archive' } }); doc.reload(); }} />
        </div>
        <NoteForm id={id} onAdded={doc.reload} />
        <ul>{d.notes?.map((n) => <li key={n.id}>{formatTime(n.at)}: {n.text}</li>)}</ul>
      </Section>
    </div>
  );
}

const FindingNote = ({ finding }: { finding: Finding }) => (
  <p class={`finding ${finding.severity === 'fatal' || finding.severity === 'error' ? 'bad' : 'wait'}`} data-testid="finding" title={finding.location}>
    <code>{finding.rule}</code> {finding.message}
  </p>
);

function LifecycleView({ id, lifecycle, onMoved }: { id: string; lifecycle: Ok<'/v1/documents/{id}/lifecycle', 'get'>; onMoved: () => void }) {
  const [reason, setReason] = useState('');
  const [amount, setAmount] = useState('');
  const move = (t: { code?: string; status?: string }) => async () => {
    const body: Record<string, unknown> = { status: t.status };
    if (reason) body[t.status === 'disputed' || t.status === 'rejected' ? 'reason' : 'note'] = reason;
    if (t.code === '208') body.reasonCode = 'suspended';
    // A partial approval says what remains unapproved (206); a payment may say how much was paid.
    if (amount && t.code === '206') body.remainingAmount = Number(amount);
    if (t.status === 'paid' || t.status === 'partially_paid') {
      body.paymentDate = new Date().toISOString().slice(0, 10);
      if (amount) body.paymentAmount = Number(amount);
    }
    await call('post', '/v1/documents/{id}/lifecycle', { params: { id }, body: body as LifecycleMove });
    onMoved();
    return `Moved to ${t.code} ${t.status}`;
  };
  return (
    <div>
      <p>Current: <strong>{lifecycle.currentCode ?? '—'}</strong> <Badge value={lifecycle.status} /> {lifecycle.party && <span class="hint">(you are the {lifecycle.party})</span>}</p>
      <Timeline testId="lifecycle-timeline" items={lifecycle.history.map((h, i) => ({
        key: `${i}-${h.code}`, at: h.at, title: `${h.code} ${h.label}`,
        tone: h.status === 'rejected' || h.status === 'disputed' ? 'bad' : h.status === 'paid' || h.status === 'approved' ? 'good' : 'info',
        detail: <span>by {h.emittedBy}{h.reason ? ` · ${h.reason}` : ''}{h.note ? ` · ${h.note}` : ''}{h.report ? ` · reported via ${h.report.via}: ${h.report.status}` : ''}</span>,
      }))} />
      <h3>Next moves</h3>
      {lifecycle.allowedTransitions.length ? (
        <div>
          <div class="inline-form">
            <label>Reason or note <input value={reason} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} placeholder="optional" /></label>
            <label>Amount <input type="number" min="0" step="0.01" value={amount} onInput={(e) => setAmount((e.currentTarget as HTMLInputElement).value)} placeholder="206: remaining · 211/212: paid" /></label>
          </div>
          <div class="buttons" data-testid="lifecycle-moves">
            {lifecycle.allowedTransitions.map((t) => <ActionButton label={`${t.code} ${t.label ?? t.status}`} testId={`move-${t.code}`} kind={t.status === 'rejected' || t.status === 'disputed' ? 'danger' : 'primary'} run={move(t)} />)}
          </div>
        </div>
      ) : <p class="hint">No move is open to you now.</p>}
    </div>
  );
}

function Representation({ id, path, label }: { id: string; path: string; label: string }) {
  const [link, setLink] = useState<{ url: string; type: string }>();
  const [error, setError] = useState<string>();
  useEffect(() => () => { if (link) URL.revokeObjectURL(link.url); }, [link]);
  const open = async () => {
    setError(undefined);
    try { setLink(await fetchBlobUrl(`/v1/documents/${encodeURIComponent(id)}/${path}`)); } catch (err) { setError(describeError(err)); }
  };
  return (
    <span class="representation">
      {link ? <a href={link.url} target="_blank" rel="noopener" download={`${id}-${path}`}>Download {label}</a> : <button type="button" onClick={open}>{label}</button>}
      {error && <span class="note error">{error}</span>}
    </span>
  );
}

/** The rendered page of the document (GET …/preview, text/html), shown in a sandboxed frame (no scripts), from a blob the page fetched with its credential. */
function Preview({ id }: { id: string }) {
  const [state, setState] = useState<{ url?: string; message?: string }>({});
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    fetchBlobUrl(`/v1/documents/${encodeURIComponent(id)}/preview`).then(
      (blob) => { url = blob.url; if (live) setState({ url: blob.url }); },
      (err: unknown) => { if (live) setState({ message: err instanceof ApiError && (err.status === 404 || err.status === 405) ? 'No rendered preview on this server (GET /v1/documents/{id}/preview).' : describeError(err) }); },
    );
    return () => { live = false; if (url) URL.revokeObjectURL(url); };
  }, [id]);
  return (
    <Section title="Preview" testId="preview">
      {state.url ? <iframe class="preview" sandbox="" src={state.url} title="Rendered document" /> : <p class="hint">{state.message ?? 'Loading the preview…'}</p>}
    </Section>
  );
}

function NoteForm({ id, onAdded }: { id: string; onAdded: () => void }) {
  const [text, setText] = useState('');
  return (
    <form class="inline-form" onSubmit={async (e) => { e.preventDefault(); if (!text.trim()) return; await call('post', '/v1/documents/{id}/actions', { params: { id }, body: { action: 'add-note', note: text.trim() } }); setText(''); onAdded(); }}>
      <label>Note <input value={text} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} maxLength={4096} /></label>
      <button type="submit">Add note</button>
    </form>
  );
}
