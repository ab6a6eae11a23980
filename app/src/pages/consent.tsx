/**
 * An agent's consent request (PKCE, services/identity/agent-access.contract.ts): what it asks for,
 * and the button that grants it with this session's credential. The authorization code is shown
 * once, for the agent; the key it exchanges it for never exceeds this credential's scopes. Point
 * EINV_AGENT_CONSENT_URL at `<public URL>/app/#/consent/{id}` to make this the consent page.
 */
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ActionButton, Badge, ErrorBox, Section, formatTime, useLoad } from '../ui.tsx';

export function ConsentPage({ id }: { id: string }) {
  const request = useLoad(() => call('get', '/v1/oauth/authorizations/{id}', { params: { id } }), [id]);
  const [code, setCode] = useState<string>();
  const r = request.data;
  return (
    <div class="page">
      <h1>An agent asks for access</h1>
      <Section title={r ? r.clientName : id} testId="consent">
        <ErrorBox error={request.error} />
        {r && (
          <div>
            <p><Badge value={r.status} /> until {formatTime(r.expiresAt)}</p>
            <p>It asks for: {r.scopes.map((s) => <code class="scope">{s} </code>)}</p>
            <p class="hint">It gets an API key of the acting company with these scopes only, never more than yours.</p>
            {r.status === 'pending' && !code && <ActionButton label="Consent" kind="primary" testId="consent-grant" run={async () => {
              const granted = await call('post', '/v1/oauth/authorizations/{id}/consent', { params: { id } });
              setCode(granted.code);
              request.reload();
            }} />}
            {code && <p class="note ok">Give this code to the agent (shown once): <code class="secret" data-testid="consent-code">{code}</code></p>}
          </div>
        )}
      </Section>
    </div>
  );
}
