/** Companies of the organization, who the session is, and the API keys (platform credentials manage keys). */
import { useState } from 'preact/hooks';
import { call, describeError, type Body } from '../api.ts';
import { ActionButton, Badge, ErrorBox, Section, formatTime, useLoad } from '../ui.tsx';
import { currentSession, updateSession } from '../session.ts';

const KEY_PRESETS: Record<string, string[]> = {
  'Everything (*)': ['*'],
  'Send and receive': ['send', 'receive', 'documents.read'],
  'Read only': ['documents.read', 'companies.read', 'stats'],
};

export function CompaniesPage() {
  const me = useLoad(() => call('get', '/v1/me'), []);
  const companies = useLoad(() => call('get', '/v1/companies', { query: { limit: 100 } }), []);
  const keys = useLoad(() => call('get', '/v1/api-keys', { query: { limit: 100 } }), []);
  const [newKey, setNewKey] = useState<string>();
  const [error, setError] = useState<string>();
  const [handoff, setHandoff] = useState<string>();
  const acting = currentSession()?.companyId;

  return (
    <div class="page">
      <h1>Companies and API keys</h1>
      <Section title="This session" testId="identity">
        <ErrorBox error={me.error} />
        {me.data && <p>{me.data.authMethod} · {me.data.keyType ?? 'token'} · organization <code>{me.data.organizationId}</code> · {me.data.isTestMode ? 'sandbox' : 'live'} · scopes {me.data.scopes.join(', ')}</p>}
      </Section>
      <Section title="Companies" testId="companies">
        <ErrorBox error={companies.error} />
        <table>
          <thead><tr><th>Name</th><th>Country</th><th>VAT</th><th>Peppol id</th><th>Status</th><th>Created</th><th /></tr></thead>
          <tbody>
            {companies.data?.data.map((c) => (
              <tr key={c.id} data-testid="company-row">
                <td>{c.name}<div class="hint">{c.id}</div></td><td>{c.country}</td><td>{c.vatNumber ?? '—'}</td><td><code>{c.peppolId ?? '—'}</code></td>
                <td><Badge value={c.status} /></td><td>{formatTime(c.createdAt)}</td>
                <td>{me.data?.keyType !== 'personal' && (acting === c.id ? <strong>acting</strong> : <button type="button" onClick={() => { updateSession({ companyId: c.id }); location.reload(); }}>Act for it</button>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Hand off to an agent" testId="handoff">
        <p class="hint">A single-use token valid 10 minutes that an AI agent redeems once for its own key of the acting company (POST /v1/oauth/handoffs/redeem).</p>
        <ActionButton label="Mint a handoff token (send, receive, documents.read)" testId="handoff-mint" run={async () => {
          const handoff = await call('post', '/v1/oauth/handoffs', { body: { name: 'dashboard handoff', scopes: ['send', 'receive', 'documents.read'] } });
          setHandoff(handoff.token);
        }} />
        {handoff && <p class="note ok">Handoff token (shown once): <code class="secret" data-testid="handoff-token">{handoff}</code></p>}
      </Section>
      <Section title="API keys" testId="api-keys">
        {keys.error ? <p class="hint" role="status">Keys are managed with an organization-wide platform credential: {keys.error}</p> : (
          <div>
            <form class="inline-form" onSubmit={async (e) => {
              e.preventDefault();
              const form = new FormData(e.currentTarget as HTMLFormElement);
              setError(undefined);
              try {
                const created = await call('post', '/v1/api-keys', { body: { name: String(form.get('name')), scopes: KEY_PRESETS[String(form.get('preset'))] ?? ['*'], keyType: 'personal', ...(acting ? { companyId: acting } : {}) } as Body<'/v1/api-keys', 'post'> });
                setNewKey(created.key);
                keys.reload();
              } catch (err) { setError(describeError(err)); }
            }}>
              <label>Name <input name="name" required maxLength={100} data-testid="key-name" /></label>
              <label>Scopes <select name="preset">{Object.keys(KEY_PRESETS).map((p) => <option>{p}</option>)}</select></label>
              <button class="primary" type="submit" data-testid="key-create">Create a personal key</button>
            </form>
            {newKey && <p class="note ok">New key (shown once): <code class="secret" data-testid="new-key">{newKey}</code></p>}
            <ErrorBox error={error} />
            <table>
              <thead><tr><th>Name</th><th>Prefix</th><th>Type</th><th>Scopes</th><th>Company</th><th>Created</th><th /></tr></thead>
              <tbody>
                {keys.data?.data.map((k) => (
                  <tr key={k.id} data-testid="key-row">
                    <td>{k.name}</td><td><code>{k.keyPrefix}…</code></td><td>{k.keyType}</td><td>{k.scopes.join(', ')}</td><td>{k.companyId ?? 'any'}</td><td>{formatTime(k.createdAt)}</td>
                    <td>{k.id !== me.data?.apiKeyId && <ActionButton label="Revoke" kind="danger" run={async () => { if (!confirm(`Revoke ${k.name}?`)) return; await call('delete', '/v1/api-keys/{id}', { params: { id: k.id } }); keys.reload(); }} />}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </div>
  );
}
