/**
 * Who the dashboard acts as. What is kept, and where, is the point of this module:
 *
 * - An API key is never kept. Signing in with one exchanges it at once for a 30-minute session
 *   token (POST /v1/sessions): the key sealed server side with its expiry, so the token carries
 *   exactly the key's rights, dies with the key, and cannot be turned back into the key. Only that
 *   token is stored, in sessionStorage (this tab, gone when it closes); the key variable is dropped.
 * - The built-in identity flow (an integration's client id and secret → POST /oauth/token) gives a
 *   short-lived JWT; the secret is sent once and never stored, the token is kept like a session.
 *   An agent handoff token is redeemed for a key that is exchanged for a session the same way.
 *
 * Nothing goes to localStorage or cookies, so nothing outlives the browser session.
 */
export interface Session {
  /** `ses_…` (from an API key) or a JWT. */
  token: string;
  kind: 'api-key' | 'oauth';
  /** When the token stops working (ISO). */
  expiresAt: string;
  /** X-Service-Company for platform and white-label credentials. */
  companyId?: string;
  /** X-Service-Organization-Id for machine tokens. */
  organizationId?: string;
}

const STORAGE_KEY = 'einv.dashboard.session';
type Listener = (session: Session | undefined, reason?: string) => void;
const listeners = new Set<Listener>();

export function currentSession(): Session | undefined {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return undefined;
  try {
    const session = JSON.parse(raw) as Session;
    if (Date.parse(session.expiresAt) <= Date.now()) {
      sessionStorage.removeItem(STORAGE_KEY);
      return undefined;
    }
    return session;
  } catch {
    sessionStorage.removeItem(STORAGE_KEY);
    return undefined;
  }
}

export function startSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  for (const listener of listeners) listener(session);
}

export function updateSession(change: Partial<Session>): void {
  const session = currentSession();
  if (session) startSession({ ...session, ...change });
}

export function endSession(reason?: string): void {
  sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener(undefined, reason);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
