/**
 * Session tokens of the web dashboard (`POST /v1/sessions`): an API key exchanged for a credential
 * that lives 30 minutes, so the browser never keeps the key itself (it holds the session token in
 * sessionStorage, gone with the tab).
 *
 * Why sealed, and why it can never hold more than the key: the token is the key encrypted (JWE,
 * `dir` + A256GCM) together with its expiry, under a secret only the gateway knows. The browser
 * cannot read the key out of it, nor stretch the expiry. Each request opens it and authenticates the
 * key inside exactly as if the key had been sent, so the session has the key's scopes, key type and
 * company, a revoked key or a suspended company ends its sessions at once, and nothing is stored
 * server side (any gateway replica sharing the secret accepts it). Only a plain API key can be
 * sealed: a session cannot mint a longer one, and JWTs (the identity flows) are short-lived already.
 *
 * The secret: derived from EINV_OAUTH_KEY_SECRET (the same on every replica) when set; otherwise a
 * random one per process, which is enough for the embedded single-process default (a restart asks
 * users to sign in again).
 */
import { createHash, randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { DomainError } from '../shared/errors.ts';
import { SESSION_SECONDS } from './gateway.contract.ts';

/** What marks a session token among bearer credentials (API keys are `svc_…`, JWTs `eyJ…`). */
export const SESSION_TOKEN_PREFIX = 'ses_';
/** Longest token we try to open (a sealed key is ~250 characters). */
const MAX_TOKEN_LENGTH = 2_048;

interface SealedSession {
  /** The API key the session stands for. */
  key: string;
  /** Unix seconds. */
  exp: number;
}

/**
 * Every segment in the one base64url spelling of its bytes. A segment's last character may carry
 * bits no byte uses (the 16-byte GCM tag ends on 4 of them); decoders ignore those bits, so without
 * this check a token with one such character changed would still open: the token we issued is the
 * only spelling we accept.
 */
function isCanonicalCompact(jwe: string): boolean {
  return jwe.split('.').every((segment) => Buffer.from(segment, 'base64url').toString('base64url') === segment);
}

export class DashboardSessions {
  readonly #key: Uint8Array;

  constructor(secret: string | undefined) {
    this.#key = secret ? createHash('sha256').update(`einv.dashboard-session\0${secret}`, 'utf8').digest() : randomBytes(32);
  }

  /** Seals an API key into a session token valid SESSION_SECONDS from `now`. */
  async seal(apiKey: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
    if (!apiKey.startsWith('svc_')) throw new DomainError('INVALID_TOKEN', 'Only an API key (svc_…) can be exchanged for a dashboard session; a token is used as it is');
    const exp = Math.floor(now.getTime() / 1000) + SESSION_SECONDS;
    const payload: SealedSession = { key: apiKey, exp };
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .encrypt(this.#key);
    return { token: `${SESSION_TOKEN_PREFIX}${jwe}`, expiresAt: new Date(exp * 1000) };
  }

  /** The API key inside a session token; 401 INVALID_TOKEN when it is not ours, EXPIRED_TOKEN when it ran out. */
  async open(token: string, now: Date): Promise<string> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) throw new DomainError('INVALID_TOKEN', 'Not a dashboard session token');
    if (!isCanonicalCompact(token.slice(SESSION_TOKEN_PREFIX.length))) throw new DomainError('INVALID_TOKEN', 'The session token could not be opened (altered, or issued by another deployment)');
    let session: SealedSession;
    try {
      const { plaintext } = await compactDecrypt(token.slice(SESSION_TOKEN_PREFIX.length), this.#key);
      session = JSON.parse(new TextDecoder().decode(plaintext)) as SealedSession;
    } catch {
      throw new DomainError('INVALID_TOKEN', 'The session token could not be opened (altered, or issued by another deployment)');
    }
    if (typeof session.key !== 'string' || !session.key.startsWith('svc_') || typeof session.exp !== 'number') throw new DomainError('INVALID_TOKEN', 'Not a dashboard session token');
    if (session.exp * 1000 <= now.getTime()) throw new DomainError('EXPIRED_TOKEN', 'The dashboard session has expired; sign in again');
    return session.key;
  }
}
