/** The event log (GET /v1/events): what happened, newest first, filtered by type. */
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBox, Pager, Section, formatTime, useLoad } from '../ui.tsx';

export function EventsPage() {
  const [type, setType] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const events = useLoad(() => call('get', '/v1/events', { query: { limit: 50, ...(type ? { type } : {}), ...(cursors.length ? { cursor: cursors[cursors.length - 1] } : {}) } }), [type, cursors.join()]);
  const [open, setOpen] = useState<string>();
  return (
    <div class="page">
      <h1>Event log</h1>
      <Section title="Events" testId="events">
        <form class="filters" onSubmit={(e) => { e.preventDefault(); setCursors([]); setType(String(new FormData(e.currentTarget as HTMLFormElement).get('type') ?? '').trim()); }}>
          <input name="type" placeholder="Type, e.g. document.received" aria-label="Event type" />
          <button type="submit">Filter</button>
        </form>
        <ErrorBox error={events.error} />
        <table>
          <thead><tr><th>When</th><th>Type</th><th>Company</th><th>Acknowledged</th></tr></thead>
          <tbody>
            {events.data?.data.map((e) => [
              <tr key={e.id} class="link" onClick={() => setOpen(open === e.id ? undefined : e.id)} data-testid="event-row">
                <td>{formatTime(e.createdAt)}</td><td><code>{e.type}</code></td><td>{e.companyId ?? 'organization'}</td><td>{e.acknowledged ? formatTime(e.acknowledgedAt) : 'no'}</td>
              </tr>,
              open === e.id && <tr key={`${e.id}-data`}><td colSpan={4}><pre>{JSON.stringify(e.data, null, 2)}</pre></td></tr>,
            ])}
            {events.data && !events.data.data.length && <tr><td colSpan={4} class="empty">No events.</td></tr>}
          </tbody>
        </table>
        <Pager hasMore={!!events.data?.hasMore} onNext={() => events.data?.cursor && setCursors([...cursors, events.data.cursor])} onFirst={cursors.length ? () => setCursors([]) : undefined} />
      </Section>
    </div>
  );
}
