/** Webhooks: create and test them, each delivery's attempts on a retry timeline, and replay of an event. */
import { useState } from 'preact/hooks';
import { call, describeError, type Body, type Ok } from '../api.ts';
import { ActionButton, Badge, ErrorBox, Section, Timeline, formatTime, useLoad } from '../ui.tsx';

type Webhook = Ok<'/v1/webhooks', 'get'>['data'][number];
type Delivery = Ok<'/v1/webhooks/{id}/deliveries', 'get'>['data'][number];
type CreateWebhook = Body<'/v1/webhooks', 'post'>;

export function WebhooksPage() {
  const list = useLoad(() => call('get', '/v1/webhooks'), []);
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<string>();
  const create = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setError(undefined);
    try {
      const created = await call('post', '/v1/webhooks', { body: { url: String(form.get('url')), events: [String(form.get('events') || '*')], description: String(form.get('description') || '') || undefined } as CreateWebhook });
      setSecret(created.secret);
      (event.currentTarget as HTMLFormElement | null)?.reset();
      list.reload();
    } catch (err) { setError(describeError(err)); }
  };
  return (
    <div class="page">
      <h1>Webhooks</h1>
      <Section title="New webhook">
        <form class="inline-form" onSubmit={create}>
          <label>URL <input name="url" type="url" required placeholder="https://example.org/hooks" data-testid="webhook-url" /></label>
          <label>Events <select name="events"><option value="*">every event</option><option>document.received</option><option>document.delivered</option><option>document.failed</option><option>lifecycle.updated</option></select></label>
          <label>Description <input name="description" /></label>
          <button class="primary" type="submit" data-testid="webhook-create">Create</button>
        </form>
        {secret && <p class="note ok">Signing secret (shown once): <code class="secret">{secret}</code></p>}
        <ErrorBox error={error} />
      </Section>
      <ErrorBox error={list.error} />
      {list.data?.data.map((w) => <WebhookCard key={w.id} webhook={w} onChange={list.reload} />)}
      {list.data && !list.data.data.length && <p class="empty">No webhooks yet.</p>}
    </div>
  );
}

function WebhookCard({ webhook, onChange }: { webhook: Webhook; onChange: () => void }) {
  const deliveries = useLoad(() => call('get', '/v1/webhooks/{id}/deliveries', { params: { id: webhook.id }, query: { limit: 20 } }), [webhook.id]);
  return (
    <Section title={webhook.url} testId="webhook" actions={<>
      <Badge value={webhook.status} />
      <ActionButton label="Send a test event" testId="webhook-test" run={async () => { await call('post', '/v1/webhooks/{id}/test', { params: { id: webhook.id } }); setTimeout(deliveries.reload, 800); return 'Test event queued'; }} />
      <ActionButton label="Refresh" run={async () => deliveries.reload()} />
      <ActionButton label={webhook.status === 'active' ? 'Pause' : 'Activate'} run={async () => { await call('patch', '/v1/webhooks/{id}', { params: { id: webhook.id }, body: { status: webhook.status === 'active' ? 'paused' : 'active' } as Body<'/v1/webhooks/{id}', 'patch'> }); onChange(); }} />
      <ActionButton label="Delete" kind="danger" run={async () => { if (!confirm(`Delete the webhook to ${webhook.url}?`)) return; await call('delete', '/v1/webhooks/{id}', { params: { id: webhook.id } }); onChange(); }} />
    </>}>
      <p class="hint">{webhook.events.join(', ')} · {webhook.failureCount} consecutive failures · created {formatTime(webhook.createdAt)}</p>
      <ErrorBox error={deliveries.error} />
      <table>
        <thead><tr><th>Event</th><th>Status</th><th>Attempts (retry timeline)</th><th /></tr></thead>
        <tbody>
          {deliveries.data?.data.map((d) => (
            <tr key={d.id} data-testid="delivery">
              <td><code>{d.eventType}</code><div class="hint">{d.eventId}{d.test ? ' · test' : ''}</div></td>
              <td><Badge value={d.status} /></td>
              <td><AttemptTimeline delivery={d} /></td>
              <td>{!d.test && <ActionButton label="Replay" testId="replay" run={async () => { await call('post', '/v1/webhooks/{id}/replay', { params: { id: webhook.id }, body: { eventId: d.eventId } }); setTimeout(deliveries.reload, 800); return 'Replayed'; }} />}</td>
            </tr>
          ))}
          {deliveries.data && !deliveries.data.data.length && <tr><td colSpan={4} class="empty">No deliveries yet.</td></tr>}
        </tbody>
      </table>
    </Section>
  );
}

function AttemptTimeline({ delivery }: { delivery: Delivery }) {
  const items = delivery.attemptLog.map((a, i) => ({
    key: `a${i}`, at: a.at ?? null, title: `#${a.attempt ?? i + 1} ${a.statusCode ?? 'no answer'}`,
    tone: (a.statusCode && a.statusCode < 300 ? 'good' : 'bad') as 'good' | 'bad',
    detail: `${a.latencyMs ?? '?'} ms${a.error ? ` · ${a.error}` : ''}`,
  }));
  if (delivery.status === 'pending' && delivery.nextAttemptAt) items.push({ key: 'next', at: delivery.nextAttemptAt, title: 'next retry', tone: 'wait' as never, detail: 'scheduled' });
  return items.length ? <Timeline items={items} testId="attempts" /> : <span class="hint">not attempted yet</span>;
}
