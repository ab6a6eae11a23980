/** Sandbox controls (test credentials only): another organization, reset, the company's virtual clock, a forced rate limit, the idempotency store. */
import { useState } from 'preact/hooks';
import { call, type Body } from '../api.ts';
import { ActionButton, Section, useLoad } from '../ui.tsx';
import { signInWithKey } from './sign-in.tsx';

export function SandboxPage() {
  const me = useLoad(() => call('get', '/v1/me'), []);
  const company = useLoad(() => call('get', '/v1/me/company'), []);
  const [created, setCreated] = useState<{ apiKey: string; peppolId: string | null | undefined; organizationId: string }>();
  const [scope, setScope] = useState<'all' | 'documents' | 'events' | 'idempotency'>('events');
  const [by, setBy] = useState('1d');
  const [seconds, setSeconds] = useState(5);
  const companyId = company.data?.id;

  if (me.data && !me.data.isTestMode) return <div class="page"><h1>Sandbox</h1><p class="hint">These controls are for sandbox (test) credentials only.</p></div>;
  return (
    <div class="page">
      <h1>Sandbox</h1>
      <Section title="Another organization" testId="sandbox-bootstrap">
        <p class="hint">A second test organization to exchange invoices with.</p>
        <ActionButton label="Create a sandbox organization" kind="primary" testId="sandbox-bootstrap-run" run={async () => {
          const boot = await call('post', '/v1/sandbox/bootstrap', { bearer: null, body: { label: 'partner' } });
          setCreated({ apiKey: boot.apiKey, peppolId: boot.company.peppolId, organizationId: boot.organizationId });
          return `Created ${boot.organizationId}`;
        }} />
        {created && (
          <div>
            <p>Its Peppol id: <code data-testid="sandbox-peppol-id">{created.peppolId}</code>; its key (shown once): <code class="secret">{created.apiKey}</code></p>
            <ActionButton label="Switch to it" run={async () => { await signInWithKey(created.apiKey); }} />
          </div>
        )}
      </Section>
      <Section title="Virtual clock" testId="sandbox-clock">
        <p class="hint">Moves the time of {company.data?.name ?? 'the acting company'} forward (deadlines, due dates, retries).</p>
        <label>By <input value={by} onInput={(e) => setBy((e.currentTarget as HTMLInputElement).value)} pattern="\d+[hdwmy]" data-testid="clock-by" /></label>
        <ActionButton label="Advance" kind="primary" testId="clock-advance" disabled={!companyId} run={async () => {
          const clock = await call('post', '/v1/sandbox/clock/advance', { params: {}, body: { companyId: companyId!, by } });
          return `Now ${new Date(clock.now).toLocaleString()} (offset ${clock.offsetSeconds} s)`;
        }} />
        <ActionButton label="Back to real time" disabled={!companyId} run={async () => {
          const clock = await call('post', '/v1/sandbox/clock/reset', { body: { companyId: companyId! } });
          return `Now ${new Date(clock.now).toLocaleString()}`;
        }} />
      </Section>
      <Section title="Forced rate limit" testId="sandbox-rate-limit">
        <p class="hint">Every call of this organization is answered 429 for a while: see how your integration copes.</p>
        <label>Seconds <input type="number" min={1} max={3600} value={seconds} onInput={(e) => setSeconds(Number((e.currentTarget as HTMLInputElement).value))} /></label>
        <ActionButton label="Exhaust the rate limit" kind="danger" testId="rate-limit-exhaust" run={async () => {
          const r = await call('post', '/v1/sandbox/rate-limit/exhaust', { body: { durationSeconds: seconds } });
          return `Throttled until ${new Date(r.exhaustedUntil).toLocaleTimeString()}`;
        }} />
      </Section>
      <Section title="Reset" testId="sandbox-reset">
        <label>What <select value={scope} onChange={(e) => setScope((e.currentTarget as HTMLSelectElement).value as typeof scope)} data-testid="reset-scope">
          <option value="events">events</option><option value="idempotency">idempotency keys</option><option value="documents">documents</option><option value="all">everything</option>
        </select></label>
        <ActionButton label="Reset" kind="danger" testId="reset-run" run={async () => {
          if (!confirm(`Delete the sandbox's ${scope}? This cannot be undone.`)) return;
          const r = await call('post', '/v1/sandbox/reset', { body: { confirm: 'yes', scope } as Body<'/v1/sandbox/reset', 'post'> });
          return `Deleted ${Object.entries(r.deleted).map(([k, v]) => `${v} ${k}`).join(', ')}`;
        }} />
        <ActionButton label="Flush idempotency keys" run={async () => `Flushed ${(await call('post', '/v1/sandbox/idempotency/flush', { body: {} as never })).flushed}`} />
      </Section>
    </div>
  );
}
