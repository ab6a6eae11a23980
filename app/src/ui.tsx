/** Small building blocks shared by the pages: loading data, errors, badges, progress, timelines. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api.ts';

export interface Loaded<T> { data?: T; error?: string; loading: boolean; reload: () => void }

/** Runs `load` now and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => { if (live) setState({ data, loading: false }); },
      (err: unknown) => { if (live) setState({ error: describeError(err), loading: false }); },
    );
    return () => { live = false; };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** A button that runs an async action, shows it is busy, and reports its error or result. */
export function ActionButton(props: { label: string; run: () => Promise<string | void>; kind?: 'primary' | 'danger' | 'plain'; testId?: string; disabled?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  const onClick = async () => {
    setBusy(true);
    setMessage(undefined);
    try {
      const text = await props.run();
      if (text) setMessage({ ok: true, text });
    } catch (err) {
      setMessage({ ok: false, text: describeError(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={props.kind ?? 'plain'} data-testid={props.testId} disabled={busy || props.disabled} onClick={onClick}>{busy ? `${props.label}…` : props.label}</button>
      {message && <span class={message.ok ? 'note ok' : 'note error'} role="status">{message.text}</span>}
    </span>
  );
}

export const ErrorBox = ({ error }: { error?: string }) => (error ? <p class="error-box" role="alert">{error}</p> : null);

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren; testId?: string }) {
  return (
    <section class="card" data-testid={props.testId}>
      <header><h2>{props.title}</h2>{props.actions && <div class="card-actions">{props.actions}</div>}</header>
      {props.children}
    </section>
  );
}

const STATUS_TONES: Record<string, string> = {
  delivered: 'good', succeeded: 'good', received: 'good', approved: 'good', paid: 'good', active: 'good', sent: 'info',
  pending: 'wait', under_review: 'wait', partially_paid: 'wait', paused: 'wait',
  failed: 'bad', rejected: 'bad', disputed: 'bad', disabled: 'bad', cancelled: 'muted', duplicate: 'muted',
};
export const Badge = ({ value }: { value: string | null | undefined }) => <span class={`badge ${STATUS_TONES[value ?? ''] ?? 'muted'}`}>{value ?? '—'}</span>;

export function Progress(props: { done: number; total: number; label: string }) {
  const pct = props.total ? Math.round((props.done / props.total) * 100) : 0;
  return (
    <div class="progress" role="progressbar" aria-valuemin={0} aria-valuemax={props.total} aria-valuenow={props.done} data-testid="progress">
      <div class="bar" style={{ width: `${pct}%` }} />
      <span>{props.label}: {props.done}/{props.total}</span>
    </div>
  );
}

export interface TimelineItem { key: string; at?: string | null; title: ComponentChildren; detail?: ComponentChildren; tone?: 'good' | 'bad' | 'wait' | 'info' | 'muted'; future?: boolean }

/** Steps in time order, one dot each: lifecycle steps, delivery attempts. */
export function Timeline({ items, testId }: { items: TimelineItem[]; testId?: string }) {
  return (
    <ol class="timeline" data-testid={testId}>
      {items.map((item) => (
        <li key={item.key} class={`${item.tone ?? 'info'}${item.future ? ' future' : ''}`}>
          <span class="dot" />
          <div><strong>{item.title}</strong>{item.at && <time dateTime={item.at}> {formatTime(item.at)}</time>}{item.detail && <div class="detail">{item.detail}</div>}</div>
        </li>
      ))}
    </ol>
  );
}

export const formatTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '—');
export const formatAmount = (amount: number | null | undefined, currency: string | null | undefined) => (amount === null || amount === undefined ? '—' : `${amount.toFixed(2)} ${currency ?? ''}`.trim());

export function Pager(props: { hasMore: boolean; onNext: () => void; onFirst?: (() => void) | undefined }) {
  return (
    <div class="pager">
      {props.onFirst && <button type="button" onClick={props.onFirst}>First page</button>}
      {props.hasMore && <button type="button" onClick={props.onNext}>Next page</button>}
    </div>
  );
}
