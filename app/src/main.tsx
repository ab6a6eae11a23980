/** The dashboard shell: sign-in gate, navigation, the acting company, and the page of the route. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { call } from './api.ts';
import { currentSession, endSession, onSessionChange, updateSession, type Session } from './session.ts';
import { useRoute } from './router.ts';
import { useLoad } from './ui.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { DocumentsPage } from './pages/documents.tsx';
import { DocumentPage } from './pages/document.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { EventsPage } from './pages/events.tsx';
import { RequestsPage } from './pages/requests.tsx';
import { CompaniesPage } from './pages/companies.tsx';
import { SandboxPage } from './pages/sandbox.tsx';
import { ConsentPage } from './pages/consent.tsx';

const NAV: Array<[string, string]> = [
  ['documents', 'Documents'],
  ['webhooks', 'Webhooks'],
  ['events', 'Event log'],
  ['requests', 'Requests'],
  ['companies', 'Companies & keys'],
  ['sandbox', 'Sandbox'],
];

function App() {
  const [session, setSession] = useState<Session | undefined>(currentSession);
  const [reason, setReason] = useState<string>();
  useEffect(() => onSessionChange((s, why) => { setSession(s); setReason(why); }), []);
  // The session ends when its token does: back to sign-in then, not a page of errors.
  useEffect(() => {
    if (!session) return;
    const left = Date.parse(session.expiresAt) - Date.now();
    const timer = setTimeout(() => endSession('Your session has expired; sign in again.'), Math.max(0, Math.min(left, 2 ** 31 - 1)));
    return () => clearTimeout(timer);
  }, [session?.expiresAt]);
  if (!session) return <SignIn reason={reason} />;
  return <Shell session={session} key={`${session.token.slice(-16)}-${session.companyId ?? ''}`} />;
}

function Shell({ session }: { session: Session }) {
  const route = useRoute();
  const me = useLoad(() => call('get', '/v1/me'), []);
  const company = useLoad(() => call('get', '/v1/me/company'), []);
  const companies = useLoad(() => (me.data && me.data.keyType !== 'personal' ? call('get', '/v1/companies', { query: { limit: 100 } }) : Promise.resolve(undefined)), [me.data?.keyType]);
  return (
    <div class="shell">
      <nav class="side">
        <div class="brand">E-invoicing<br /><small>{me.data?.isTestMode ? 'sandbox' : me.data ? 'live' : ''}</small></div>
        {NAV.map(([page, label]) => <a href={`#/${page}`} class={route.page === page ? 'active' : ''} data-testid={`nav-${page}`}>{label}</a>)}
        <a href="/docs" target="_blank" rel="noopener">API reference ↗</a>
      </nav>
      <div class="main">
        <header class="top">
          <span data-testid="acting-company">{company.data ? `${company.data.name} · ${company.data.peppolId ?? company.data.id}` : ''}</span>
          {companies.data && companies.data.data.length > 1 && (
            <select aria-label="Acting company" value={session.companyId} onChange={(e) => { updateSession({ companyId: (e.currentTarget as HTMLSelectElement).value }); }}>
              {companies.data.data.map((c) => <option value={c.id}>{c.name}</option>)}
            </select>
          )}
          <span class="hint">{session.kind === 'api-key' ? 'session' : 'token'} until {new Date(session.expiresAt).toLocaleTimeString()}</span>
          <button type="button" onClick={() => endSession('Signed out.')} data-testid="sign-out">Sign out</button>
        </header>
        {route.page === 'documents' && (route.id ? <DocumentPage id={route.id} /> : <DocumentsPage />)}
        {route.page === 'webhooks' && <WebhooksPage />}
        {route.page === 'events' && <EventsPage />}
        {route.page === 'requests' && <RequestsPage id={route.id} />}
        {route.page === 'companies' && <CompaniesPage />}
        {route.page === 'sandbox' && <SandboxPage />}
        {route.page === 'consent' && route.id && <ConsentPage id={route.id} />}
      </div>
    </div>
  );
}

render(<App />, document.getElementById('root')!);
