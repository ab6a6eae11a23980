/** The request log: traffic charts per minute and per hour (GET /v1/requests/timeseries), the requests, and one request's trace. */
import { useMemo, useState } from 'preact/hooks';
import { call, type Ok } from '../api.ts';
import { TrafficChart, type Series } from '../chart.tsx';
import { ErrorBox, Pager, Section, formatTime, useLoad } from '../ui.tsx';
import { navigate } from '../router.ts';

type Timeseries = Ok<'/v1/requests/timeseries', 'get'>;

const STEP_MS = { minute: 60_000, hour: 3_600_000 };

/** Every bucket of the window, the quiet ones at zero (the endpoint lists only buckets that saw requests). */
function seriesOf(ts: Timeseries | undefined, bucket: 'minute' | 'hour'): Series {
  const series: Series = { labels: [], total: [], errors: [], throttled: [] };
  if (!ts) return series;
  const step = STEP_MS[bucket];
  const byBucket = new Map(ts.data.map((d) => [Math.floor(Date.parse(d.ts) / step), d]));
  const label = (ms: number) => new Date(ms).toLocaleTimeString(undefined, bucket === 'minute' ? { hour: '2-digit', minute: '2-digit' } : { day: '2-digit', hour: '2-digit' });
  const first = Math.floor(Date.parse(ts.since) / step);
  const last = Math.floor(Date.parse(ts.until) / step);
  for (let b = Math.max(first, last - 180); b <= last; b++) {
    const d = byBucket.get(b);
    series.labels.push(label(b * step));
    series.total.push(d?.total ?? 0);
    series.errors.push(d?.errors ?? 0);
    series.throttled.push(d?.throttled ?? 0);
  }
  return series;
}

const StatusBadge = ({ status }: { status: number }) => <span class={`badge ${status < 300 ? 'good' : status === 429 ? 'wait' : status < 500 ? 'wait' : 'bad'}`}>{status}</span>;

export function RequestsPage({ id }: { id?: string | undefined }) {
  const perMinute = useLoad(() => call('get', '/v1/requests/timeseries', { query: { bucket: 'minute', since: new Date(Date.now() - 60 * 60_000).toISOString() } as never }), []);
  const perHour = useLoad(() => call('get', '/v1/requests/timeseries', { query: { bucket: 'hour', since: new Date(Date.now() - 24 * 3_600_000).toISOString() } as never }), []);
  const minuteSeries = useMemo(() => seriesOf(perMinute.data, 'minute'), [perMinute.data]);
  const hourSeries = useMemo(() => seriesOf(perHour.data, 'hour'), [perHour.data]);
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const list = useLoad(() => call('get', '/v1/requests', { query: { limit: 50, ...filters, ...(cursors.length ? { cursor: cursors[cursors.length - 1] } : {}) } as never }), [JSON.stringify(filters), cursors.join()]);

  return (
    <div class="page">
      <h1>Requests</h1>
      <Section title="Traffic" testId="traffic">
        <ErrorBox error={perMinute.error ?? perHour.error} />
        <div class="charts">
          <TrafficChart series={minuteSeries} title="Per minute, last hour" testId="chart-minute" />
          <TrafficChart series={hourSeries} title="Per hour, last day" testId="chart-hour" />
        </div>
      </Section>
      {id && <Trace id={id} />}
      <Section title="Request log" testId="requests">
        <form class="filters" onSubmit={(e) => {
          e.preventDefault();
          const next: Record<string, string> = {};
          for (const [k, v] of new FormData(e.currentTarget as HTMLFormElement).entries()) if (typeof v === 'string' && v.trim()) next[k] = v.trim();
          setCursors([]);
          setFilters(next);
        }}>
          <select name="method" aria-label="Method"><option value="">Any method</option>{['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => <option>{m}</option>)}</select>
          <input name="status" type="number" min="100" max="599" placeholder="Status" aria-label="Status" />
          <input name="path" placeholder="Path, e.g. /v1/documents" aria-label="Path" />
          <button type="submit">Filter</button>
        </form>
        <ErrorBox error={list.error} />
        <table>
          <thead><tr><th>When</th><th>Method</th><th>Path</th><th>Status</th><th>Duration</th><th>Error</th></tr></thead>
          <tbody>
            {list.data?.data.map((r) => (
              <tr key={r.id} class="link" onClick={() => navigate(`#/requests/${r.id}`)} data-testid="request-row">
                <td>{formatTime(r.createdAt)}</td><td>{r.method}</td><td><code>{r.path}</code></td>
                <td><StatusBadge status={r.status} /></td><td class="num">{r.durationMs !== undefined ? `${Math.round(r.durationMs)} ms` : '—'}</td><td>{r.errorCode ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager hasMore={!!list.data?.hasMore} onNext={() => list.data?.cursor && setCursors([...cursors, list.data.cursor])} onFirst={cursors.length ? () => setCursors([]) : undefined} />
      </Section>
    </div>
  );
}

/** One request: what it did inside (each service call, its duration and error), its validation errors and timing. */
function Trace({ id }: { id: string }) {
  const trace = useLoad(() => call('get', '/v1/requests/{id}', { params: { id } }), [id]);
  const t = trace.data;
  const total = Math.max(1, t?.durationMs ?? t?.timing.durationMs ?? 1);
  return (
    <Section title={`Trace of ${id}`} testId="trace" actions={<a href="#/requests">Close</a>}>
      <ErrorBox error={trace.error} />
      {t && (
        <div>
          <p><strong>{t.method} <code>{t.path}</code></strong> → <StatusBadge status={t.status} /> {t.errorCode && <code>{t.errorCode}</code>} in {Math.round(total)} ms · action <code>{t.action ?? '—'}</code>{t.idempotencyKey ? ` · Idempotency-Key ${t.idempotencyKey}${t.replayed ? ' (replayed)' : ''}` : ''}</p>
          <p class="hint">Received {formatTime(t.timing.receivedAt)}, completed {formatTime(t.timing.completedAt)}</p>
          <table class="waterfall" data-testid="trace-calls">
            <thead><tr><th>Call</th><th>Duration</th><th /></tr></thead>
            <tbody>
              {t.upstreamCalls.map((c, i) => (
                <tr key={i}><td><code>{c.action}</code>{c.errorCode && <span class="note error"> {c.errorCode}</span>}</td><td class="num">{Math.round(c.durationMs ?? 0)} ms</td>
                  <td class="bar-cell"><progress max={total} value={c.durationMs ?? 0} class={c.errorCode ? 'bad' : ''} /></td></tr>
              ))}
              {!t.upstreamCalls.length && <tr><td colSpan={3} class="empty">No service calls recorded.</td></tr>}
            </tbody>
          </table>
          {t.validation.length > 0 && <ul>{t.validation.map((v) => <li><code>{v.field}</code> {v.rule}: {v.message}</li>)}</ul>}
        </div>
      )}
    </Section>
  );
}
