/** Sign-in: an API key (exchanged for a session at once), a sandbox created here, an integration's client credentials, or an agent handoff token. */
import { useState } from 'preact/hooks';
import { call, describeError } from '../api.ts';
import { startSession, type Session } from '../session.ts';

const DEFAULT_AUDIENCE = 'einvoicing-exchange-api';

/** Exchanges an API key for a session token; the key itself goes no further than this function. */
export async function signInWithKey(apiKey: string): Promise<void> {
  const session = await call('post', '/v1/sessions', { bearer: apiKey.trim() });
  await begin({ token: session.token, kind: 'api-key', expiresAt: session.expiresAt });
}

/** Starts the session, then picks the company a platform credential acts for (its first one; the header's selector changes it). */
async function begin(session: Session): Promise<void> {
  const me = await call('get', '/v1/me', { bearer: session.token, headers: session.organizationId ? { 'x-service-organization-id': session.organizationId } : {} });
  if (me.keyType !== 'personal') {
    const companies = await call('get', '/v1/companies', { bearer: session.token, query: { limit: 1 }, headers: session.organizationId ? { 'x-service-organization-id': session.organizationId } : {} });
    const first = companies.data[0];
    if (first) session = { ...session, companyId: first.id };
  }
  startSession(session);
}

export function SignIn({ reason }: { reason?: string | undefined }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ apiKey: string; organizationId: string }>();
  const run = (work: () => Promise<void>) => async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try { await work(); } catch (err) { setError(describeError(err)); } finally { setBusy(false); }
  };
  const field = (form: EventTarget | null, name: string) => ((form as HTMLFormElement).elements.namedItem(name) as HTMLInputElement).value.trim();

  return (
    <main class="sign-in">
      <h1>E-invoicing exchange</h1>
      {reason && <p class="note">{reason}</p>}
      {error && <p class="error-box" role="alert">{error}</p>}
      <form class="card" onSubmit={(e) => run(async () => {
        const input = (e.currentTarget as HTMLFormElement).elements.namedItem('apiKey') as HTMLInputElement;
        const key = input.value;
        input.value = ''; // out of the DOM before anything else happens
        await signInWithKey(key);
      })(e)}>
        <h2>Sign in with an API key</h2>
        <p class="hint">The key is exchanged for a 30-minute session token and never stored in this browser.</p>
        <label>API key <input name="apiKey" type="password" autocomplete="off" required placeholder="svc_…" data-testid="api-key" /></label>
        <button class="primary" type="submit" disabled={busy} data-testid="sign-in">Sign in</button>
      </form>

      <form class="card" onSubmit={run(async () => {
        const boot = await call('post', '/v1/sandbox/bootstrap', { bearer: null, body: { label: 'dashboard' } });
        setCreated({ apiKey: boot.apiKey, organizationId: boot.organizationId });
      })}>
        <h2>Try it: a sandbox organization</h2>
        <p class="hint">Creates a test organization with one company and a test key, shown once.</p>
        {created ? (
          <div>
            <p>Organization <code>{created.organizationId}</code>. Its key (copy it now, it is not shown again):</p>
            <code class="secret" data-testid="created-key">{created.apiKey}</code>
            <button class="primary" type="button" disabled={busy} onClick={(e) => run(async () => { const key = created.apiKey; setCreated(undefined); await signInWithKey(key); })(e)} data-testid="use-created-key">Continue with this key</button>
          </div>
        ) : <button type="submit" disabled={busy} data-testid="bootstrap">Create a sandbox organization</button>}
      </form>

      <form class="card" onSubmit={(e) => run(async () => {
        const form = e.currentTarget;
        const organizationId = field(form, 'organizationId');
        const token = await fetch('/oauth/token', {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: field(form, 'clientId'), client_secret: field(form, 'clientSecret'), audience: field(form, 'audience') || DEFAULT_AUDIENCE }),
        });
        const body = await token.json() as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
        if (!token.ok || !body.access_token) throw new Error(`${body.error ?? token.status}: ${body.error_description ?? 'the token was refused'}`);
        ((form as HTMLFormElement).elements.namedItem('clientSecret') as HTMLInputElement).value = '';
        await begin({ token: body.access_token, kind: 'oauth', expiresAt: new Date(Date.now() + (body.expires_in ?? 3600) * 1000).toISOString(), organizationId });
      })(e)}>
        <h2>Sign in with an integration</h2>
        <p class="hint">The built-in identity flow: client id and secret (POST /v1/integrations) for a short-lived token; the secret is not kept.</p>
        <label>Client id <input name="clientId" required autocomplete="off" /></label>
        <label>Client secret <input name="clientSecret" type="password" required autocomplete="off" /></label>
        <label>Organization id <input name="organizationId" required placeholder="org_…" /></label>
        <label>Audience <input name="audience" placeholder={DEFAULT_AUDIENCE} /></label>
        <button type="submit" disabled={busy}>Get a token</button>
      </form>

      <form class="card" onSubmit={(e) => run(async () => {
        const redeemed = await call('post', '/v1/oauth/handoffs/redeem', { bearer: null, body: { token: field(e.currentTarget, 'handoff') } });
        await signInWithKey(redeemed.key);
      })(e)}>
        <h2>Redeem a handoff token</h2>
        <p class="hint">A single-use token a user minted for you (POST /v1/oauth/handoffs); its key is exchanged for a session.</p>
        <label>Handoff token <input name="handoff" type="password" required autocomplete="off" /></label>
        <button type="submit" disabled={busy}>Redeem</button>
      </form>
    </main>
  );
}
