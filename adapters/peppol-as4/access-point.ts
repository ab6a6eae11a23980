/**
 * This deployment as a Peppol access point, per connector host: its key and certificate (PKCS#12
 * or PEM, loaded once at start; a key that does not load leaves the connector running and saying
 * so in its health, never crashing the service), the AP trust store (G3 test or production, or a
 * PEM bundle), the revocation checker, and a circuit breaker per destination endpoint.
 */
import { readFileSync } from 'node:fs';
import { ConnectorError, type ConnectorHost } from '../sdk/index.ts';
import { COUNTRY_CODES } from '../../mappings/canonical/codes.ts';
import { loadApIdentity, peppolTrustStore, RevocationChecker, trustStoreOf, type ApIdentity, type TrustStore } from '../peppol-kit/pki.ts';

export interface AccessPoint {
  /** The network this access point is on: production (live keys) or the Peppol test network (test keys), as its PKI says. */
  livemode: boolean;
  identity: ApIdentity | undefined;
  /** Why the identity did not load. */
  identityError: string | undefined;
  /** This access point's country (see {@link countryRuleOf}); undefined when neither the option nor the certificate says. */
  country: string | undefined;
  trust: TrustStore;
  revocation: RevocationChecker | undefined;
  breakers: DestinationBreakers;
  /** Inbound messages being processed, per sending access point. */
  inFlight: Map<string, number>;
}

/** Opens after `threshold` failures in a row to one endpoint, lets one try through after `cooldownMs`. */
export class DestinationBreakers {
  private readonly state = new Map<string, { failures: number; openUntil: number }>();
  private readonly threshold: number;
  private readonly cooldownMs: number;
  constructor(options: { threshold: number; cooldownMs: number }) {
    this.threshold = options.threshold;
    this.cooldownMs = options.cooldownMs;
  }
  /** Milliseconds until the endpoint may be tried again; 0 when it may be tried now. */
  blockedFor(url: string, now: number): number {
    const s = this.state.get(url);
    return s && s.failures >= this.threshold ? Math.max(0, s.openUntil - now) : 0;
  }
  failed(url: string, now: number): void {
    const s = this.state.get(url) ?? { failures: 0, openUntil: 0 };
    s.failures += 1;
    if (s.failures >= this.threshold) s.openUntil = now + this.cooldownMs;
    this.state.set(url, s);
  }
  succeeded(url: string): void {
    this.state.delete(url);
  }
}

const accessPoints = new WeakMap<ConnectorHost, AccessPoint>();

function identityOf(host: ConnectorHost): ApIdentity {
  const c = host.config;
  const passphrase = host.secrets.has('keyPassword') ? host.secrets.get('keyPassword').reveal() : '';
  if (c.keyStoreFile) return loadApIdentity({ pkcs12: readFileSync(String(c.keyStoreFile)), passphrase });
  if (c.certificateFile && host.secrets.has('privateKey')) {
    return loadApIdentity({ certificatePem: readFileSync(String(c.certificateFile), 'utf8'), privateKeyPem: host.secrets.get('privateKey').reveal(), ...(passphrase ? { passphrase } : {}) });
  }
  throw new Error('no access point key is configured: set keyStoreFile (PKCS#12, with the keyPassword secret) or certificateFile with the privateKey secret (PEM)');
}

function pkiOf(host: ConnectorHost): 'test' | 'production' {
  const pki = String(host.config.pki ?? 'production');
  if (pki !== 'test' && pki !== 'production') throw new Error(`pki must be test or production (got ${pki})`);
  return pki;
}

/** How the operator sets the option, named in the messages that ask for it. */
const COUNTRY_OPTION = 'countryC1 (EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1)';

/**
 * The `countryC1` option when set: an ISO 3166-1 alpha-2 code, any case (the EN 16931 code list,
 * less its 1A, which an SBDH cannot carry). A bad value is the operator's mistake, refused at start
 * the way the connector host refuses a bad option value.
 */
function countryOptionOf(host: ConnectorHost): string | undefined {
  const raw = String(host.config.countryC1 ?? '').trim();
  if (!raw) return undefined;
  const code = raw.toUpperCase();
  if (!/^[A-Z]{2}$/.test(code) || !COUNTRY_CODES.has(code)) {
    throw new Error(`connector peppol-as4: option ${COUNTRY_OPTION} must be an ISO 3166-1 alpha-2 country code such as BE or NO (got "${raw}")`);
  }
  return code;
}

/**
 * The one rule for this access point's own country, the SBDH COUNTRY_C1 of every message it
 * originates itself (MLS, Invoice Responses, CDAR, Peppol Reporting): the `countryC1` option when
 * set, else the C= of its certificate subject, else none — never a guess, because Peppol Reporting
 * counts by that country and a wrong one misstates the network's statistics.
 */
export function countryRuleOf(option: string | undefined, certificateSubject: string | undefined): string | undefined {
  return option ?? (certificateSubject ? /^C=([A-Z]{2})$/m.exec(certificateSubject)?.[1] : undefined);
}

function trustOf(host: ConnectorHost): TrustStore {
  const file = String(host.config.apTrustFile ?? '');
  return file ? trustStoreOf([readFileSync(file, 'utf8')]) : peppolTrustStore(pkiOf(host));
}

/** Loads (once per host) what the access point needs; the key may fail, the rest may not. */
export function accessPointOf(host: ConnectorHost): AccessPoint {
  let ap = accessPoints.get(host);
  if (ap) return ap;
  const countryOption = countryOptionOf(host);
  let identity: ApIdentity | undefined;
  let identityError: string | undefined;
  try {
    identity = identityOf(host);
  } catch (err) {
    identityError = (err as Error).message;
    host.log.error(`peppol-as4: the access point key cannot be loaded: ${identityError}`);
  }
  const mode = String(host.config.revocation ?? 'soft');
  const revocation = mode === 'off' ? undefined : new RevocationChecker({
    softFail: mode !== 'hard',
    ...(host.config.ocspUrl ? { ocspUrl: String(host.config.ocspUrl) } : {}),
    ...(host.config.crlUrl ? { crlUrl: String(host.config.crlUrl) } : {}),
    now: () => host.clock.now(),
    async fetch(url, request) {
      const res = await host.http.request(url, request
        ? { method: 'POST', headers: { 'content-type': request.contentType }, body: request.body, timeoutMs: 10_000 }
        : { timeoutMs: 10_000 });
      return { status: res.status, body: res.body };
    },
  });
  ap = {
    livemode: pkiOf(host) === 'production', identity, identityError, country: countryRuleOf(countryOption, identity?.certificate.subject), trust: trustOf(host), revocation, inFlight: new Map(),
    breakers: new DestinationBreakers({ threshold: Number(host.config.breakerThreshold ?? 5), cooldownMs: Number(host.config.breakerCooldownMs ?? 30_000) }),
  };
  accessPoints.set(host, ap);
  return ap;
}

/** Why the access point's country is unknown, naming the option that settles it. */
export function missingCountryMessage(ap: AccessPoint): string {
  return `this access point's country is unknown: its certificate (${ap.identity?.certificate.subject.replace(/\n/g, ', ') ?? 'not loaded'}) names no C=; set the option ${COUNTRY_OPTION} to its ISO 3166-1 alpha-2 code`;
}

/**
 * The country of this access point (see {@link countryRuleOf}): the SBDH COUNTRY_C1 of the
 * messages it originates itself. None known is the operator's to fix (the health says so): a
 * transient failure, so the message goes once the option is set.
 */
export function countryOfAccessPoint(ap: AccessPoint): string {
  if (!ap.country) throw ConnectorError.transient('AP_COUNTRY_UNKNOWN', missingCountryMessage(ap));
  return ap.country;
}
