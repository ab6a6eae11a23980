/**
 * Peppol discovery: participant → SML DNS (U-NAPTR) → SMP → endpoint. The SMP's signed service
 * metadata is verified (XMLDSig through xml-crypto, the signer checked against the trust store),
 * its activation window honoured and at most one redirect followed. Answers are cached for a while
 * and "not registered" for a shorter while. Network access goes through the functions given, so
 * the connector passes the host's HTTP client and tests a DNS server on 127.0.0.1.
 */
import { Resolver } from 'node:dns/promises';
import { X509Certificate } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { children, elementChildren, parseStrictXml, text, type DomElement } from './dom.ts';
import { DOCUMENT_SCHEME, WILDCARD_DOCUMENT_SCHEME, legacyCnameName, naptrName, serviceGroupUrl, serviceMetadataUrl, smpUrlOfNaptr, wildcardCandidates } from '../../mappings/identifiers/peppol-network.ts';

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const SMP_NS = 'http://busdox.org/serviceMetadata/publishing/1.0/';
const WSA_NS = 'http://www.w3.org/2005/08/addressing';


export interface Endpoint {
  transportProfile: string;
  url: string;
  /** The access point's certificate (base64 DER as published). */
  certificate: string;
  certificateSubject: string | null;
  certificateNotAfter: string | null;
  activationDate: string | null;
  expirationDate: string | null;
  serviceDescription: string | null;
  technicalContactUrl: string | null;
}

export interface Discovery {
  /** The participant's SMP base URL, or null when the SML does not know it. */
  smpUrl: string | null;
  /** The document type identifiers its service group lists (`scheme::value`). */
  documentTypeIds: string[];
  /** The endpoints for the document type (empty: registered, but not for this type). */
  endpoints: Endpoint[];
}

export class DiscoveryError extends Error {
  override name = 'DiscoveryError';
  /** true: the network or SMP did not answer (ask again later); false: a wrong or unsafe answer. */
  readonly transient: boolean;
  constructor(message: string, transient: boolean) { super(message); this.transient = transient; }
}

export interface DiscoveryOptions {
  smlZone: string;
  /** DNS servers (`host` or `host:port`); the system's when empty. */
  dnsServers: string[];
  /** Also try the CNAME form the SML used before 2026-02 when no NAPTR record answers. */
  legacyCname: boolean;
  /** Certificates a signer may be or be issued by (the SMP CAs of the network, or pinned SMP certificates). */
  trust: X509Certificate[];
  /** GET a URL: status and body (the connector passes the host's HTTP client). */
  get(url: string): Promise<{ status: number; body: string }>;
  now(): Date;
  cacheTtlMs: number;
  negativeCacheTtlMs: number;
}

// ---- DNS ---------------------------------------------------------------------------------------

function resolverFor(servers: string[]): Resolver {
  const r = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length) r.setServers(servers);
  return r;
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/** The participant's SMP base URL through the SML's DNS zone, or null when it is not registered. */
export async function smpUrlOf(participantId: string, opts: Pick<DiscoveryOptions, 'smlZone' | 'dnsServers' | 'legacyCname'>): Promise<string | null> {
  const resolver = resolverFor(opts.dnsServers);
  try {
    const records = await resolver.resolveNaptr(naptrName(participantId, opts.smlZone));
    const urls = records.sort((a, b) => a.order - b.order || a.preference - b.preference).map(smpUrlOfNaptr).filter((u): u is string => !!u);
    if (urls.length) return urls[0]!;
  } catch (err) {
    if (!NOT_FOUND.has((err as { code?: string }).code ?? '')) throw new DiscoveryError(`SML lookup failed: ${(err as Error).message}`, true);
  }
  if (!opts.legacyCname) return null;
  const host = legacyCnameName(participantId, opts.smlZone);
  try {
    await resolver.resolve4(host);
    return `http://${host.toLowerCase()}`;
  } catch (err) {
    if (NOT_FOUND.has((err as { code?: string }).code ?? '')) return null;
    throw new DiscoveryError(`SML lookup failed: ${(err as Error).message}`, true);
  }
}

// ---- the SMP's signature -----------------------------------------------------------------------

export interface SignatureCheck {
  valid: boolean;
  reason?: string;
  signer?: X509Certificate;
  /** The document as signed (canonical form): read the metadata from this, never from the raw text. */
  signed?: string;
}

/**
 * Verifies an SMP's SignedServiceMetadata: one enveloped signature, child of the root, over the
 * whole document (Reference URI=""), cryptographically valid with the certificate in its KeyInfo,
 * that certificate valid now and either in the trust store or issued by a certificate there.
 */
export function verifySignedServiceMetadata(xml: string, trust: X509Certificate[], now: Date): SignatureCheck {
  let root: DomElement | null;
  try {
    root = parseStrictXml(xml).documentElement;
  } catch {
    return { valid: false, reason: 'the SMP answer is not well-formed XML' };
  }
  if (!root) return { valid: false, reason: 'the SMP answer is empty' };
  const signatures = Array.from(root.getElementsByTagNameNS(DSIG_NS, 'Signature'));
  if (signatures.length !== 1 || signatures[0]!.parentNode !== root) return { valid: false, reason: 'the service metadata must carry exactly one signature, on its root element' };
  const sigEl = signatures[0]!;
  const certB64 = text(children(sigEl, [[DSIG_NS, 'KeyInfo'], [DSIG_NS, 'X509Data'], [DSIG_NS, 'X509Certificate']])[0]).replace(/\s+/g, '');
  if (!certB64) return { valid: false, reason: 'the signature has no X509Certificate' };
  let signer: X509Certificate;
  try {
    signer = new X509Certificate(Buffer.from(certB64, 'base64'));
  } catch {
    return { valid: false, reason: 'the signing certificate cannot be read' };
  }
  const refs = children(sigEl, [[DSIG_NS, 'SignedInfo'], [DSIG_NS, 'Reference']]);
  if (refs.length !== 1 || (refs[0]!.getAttribute('URI') ?? '') !== '') return { valid: false, reason: 'the signature must cover the whole document (one Reference, URI="")' };

  const sig = new SignedXml({ publicCert: signer.toString() });
  sig.loadSignature(sigEl as unknown as Parameters<SignedXml['loadSignature']>[0]);
  let ok = false;
  try {
    ok = sig.checkSignature(xml);
  } catch (err) {
    return { valid: false, reason: `the signature does not verify: ${(err as Error).message}` };
  }
  if (!ok) return { valid: false, reason: 'the signature does not verify' };

  const at = now.getTime();
  if (Date.parse(signer.validFrom) > at || Date.parse(signer.validTo) < at) return { valid: false, reason: `the SMP certificate is not valid now (${signer.validFrom} – ${signer.validTo})`, signer };
  const trusted = trust.some((t) => t.fingerprint256 === signer.fingerprint256 || (signer.checkIssued(t) && signer.verify(t.publicKey)));
  if (!trusted) return { valid: false, reason: `the SMP certificate (${signer.subject.replace(/\n/g, ', ')}) is not trusted`, signer };
  return { valid: true, signer, signed: sig.getSignedReferences()[0] };
}

// ---- the service metadata -----------------------------------------------------------------------

export type ServiceMetadata =
  | { kind: 'redirect'; href: string; certificateUid: string | null }
  | { kind: 'endpoints'; participantId: string; documentTypeId: string; endpoints: Endpoint[] };

function certificateFacts(b64: string): Pick<Endpoint, 'certificateSubject' | 'certificateNotAfter'> {
  try {
    const c = new X509Certificate(Buffer.from(b64, 'base64'));
    return { certificateSubject: c.subject.replace(/\n/g, ', '), certificateNotAfter: new Date(c.validTo).toISOString() };
  } catch {
    return { certificateSubject: null, certificateNotAfter: null };
  }
}

/** Reads the (signed) service metadata: a redirect, or the endpoints of its processes. */
export function parseServiceMetadata(xml: string): ServiceMetadata {
  const root = parseStrictXml(xml).documentElement;
  const none = { kind: 'endpoints' as const, participantId: '', documentTypeId: '', endpoints: [] };
  if (!root) return none;
  // SignedServiceMetadata/ServiceMetadata, or a bare ServiceMetadata (what the signature covers, canonicalized)
  const metadata = root.localName === 'ServiceMetadata' ? root : children(root, [[SMP_NS, 'ServiceMetadata']])[0];
  if (!metadata) return none;
  const redirect = children(metadata, [[SMP_NS, 'Redirect']])[0];
  if (redirect) return { kind: 'redirect', href: redirect.getAttribute('href') ?? '', certificateUid: text(children(redirect, [[SMP_NS, 'CertificateUID']])[0]) || null };
  const path: Array<[string, string]> = [[SMP_NS, 'ServiceInformation'], [SMP_NS, 'ProcessList'], [SMP_NS, 'Process'], [SMP_NS, 'ServiceEndpointList'], [SMP_NS, 'Endpoint']];
  const endpoints = children(metadata, path).map((e): Endpoint => {
    const get = (...steps: Array<[string, string]>) => text(children(e, steps)[0]) || null;
    const certificate = (get([SMP_NS, 'Certificate']) ?? '').replace(/\s+/g, '');
    return {
      transportProfile: e.getAttribute('transportProfile') ?? '',
      url: get([WSA_NS, 'EndpointReference'], [WSA_NS, 'Address']) ?? '',
      certificate,
      ...certificateFacts(certificate),
      activationDate: get([SMP_NS, 'ServiceActivationDate']),
      expirationDate: get([SMP_NS, 'ServiceExpirationDate']),
      serviceDescription: get([SMP_NS, 'ServiceDescription']),
      technicalContactUrl: get([SMP_NS, 'TechnicalContactUrl']),
    };
  });
  const info = children(metadata, [[SMP_NS, 'ServiceInformation']])[0];
  const idOf = (local: string) => (info ? text(elementChildren(info).find((c) => c.localName === local)) : '');
  return { kind: 'endpoints', participantId: idOf('ParticipantIdentifier'), documentTypeId: idOf('DocumentIdentifier'), endpoints };
}

/** The document type identifiers a service group references (`scheme::value`, decoded). */
export function documentTypeIdsOf(serviceGroupXml: string): string[] {
  const root = parseStrictXml(serviceGroupXml).documentElement;
  if (!root) return [];
  return children(root, [[SMP_NS, 'ServiceMetadataReferenceCollection'], [SMP_NS, 'ServiceMetadataReference']])
    .map((r) => r.getAttribute('href') ?? '')
    .map((href) => { try { return decodeURIComponent(href.split('/services/')[1] ?? ''); } catch { return ''; } })
    .filter(Boolean);
}

/** Within its activation window (dates as the SMP wrote them; absent means open). */
export function isActive(e: Endpoint, now: Date): boolean {
  const t = now.getTime();
  if (e.activationDate && Date.parse(e.activationDate) > t) return false;
  if (e.expirationDate && Date.parse(e.expirationDate) < t) return false;
  return true;
}

// ---- the whole lookup --------------------------------------------------------------------------

/** One hop of a traced lookup. */
export interface TraceStep { hop: 'sml' | 'smp'; ok: boolean; detail: string; ms: number }

export interface DiscoveryTrace {
  steps: TraceStep[];
  /** The active endpoint for the transport profile, when every hop passed. */
  endpoint?: Endpoint;
}

/** Looks participants up and keeps the answers (positive for cacheTtlMs, "not registered" for negativeCacheTtlMs). */
export class DiscoveryClient {
  private readonly cache = new Map<string, { answer: Discovery; until: number }>();
  private readonly opts: DiscoveryOptions;
  constructor(opts: DiscoveryOptions) { this.opts = opts; }

  async discover(participantId: string, documentTypeId: string, documentScheme = DOCUMENT_SCHEME): Promise<Discovery & { cached: boolean }> {
    const key = `${participantId.toLowerCase()}|${documentScheme}::${documentTypeId}`;
    const now = this.opts.now();
    const kept = this.cache.get(key);
    if (kept && kept.until > now.getTime()) return { ...kept.answer, cached: true };
    const answer = await this.lookup(participantId, documentTypeId, documentScheme, now);
    const ttl = answer.endpoints.length ? this.opts.cacheTtlMs : this.opts.negativeCacheTtlMs;
    if (this.cache.size >= 10_000) this.cache.clear();
    if (ttl > 0) this.cache.set(key, { answer, until: now.getTime() + ttl });
    return { ...answer, cached: false };
  }

  private async lookup(participantId: string, documentTypeId: string, scheme: string, now: Date): Promise<Discovery> {
    const smpUrl = await smpUrlOf(participantId, this.opts);
    if (!smpUrl) return { smpUrl: null, documentTypeIds: [], endpoints: [] };
    const group = await this.get(serviceGroupUrl(smpUrl, participantId));
    if (group.status === 404) return { smpUrl, documentTypeIds: [], endpoints: [] };
    if (group.status !== 200) throw new DiscoveryError(`the SMP answered ${group.status} for the service group of ${participantId}`, group.status >= 500 || group.status === 429);
    const documentTypeIds = documentTypeIdsOf(group.body);
    // the exact document type, then (PINT) the wildcard registrations that cover it, most specific first
    const tries: Array<[string, string]> = [[scheme, documentTypeId], ...(scheme === DOCUMENT_SCHEME ? wildcardCandidates(documentTypeId).map((w): [string, string] => [WILDCARD_DOCUMENT_SCHEME, w]) : [])];
    for (const [s, id] of tries) {
      const endpoints = await this.endpointsFor(smpUrl, participantId, s, id, now);
      if (endpoints) return { smpUrl, documentTypeIds, endpoints };
    }
    return { smpUrl, documentTypeIds, endpoints: [] };
  }

  /** The active endpoints the SMP signs for one document type identifier, or undefined when it has none (404). */
  private async endpointsFor(smpUrl: string, participantId: string, scheme: string, documentTypeId: string, now: Date): Promise<Endpoint[] | undefined> {
    let url = serviceMetadataUrl(smpUrl, participantId, documentTypeId, scheme);
    for (let hop = 0; hop < 2; hop++) {
      const res = await this.get(url);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new DiscoveryError(`the SMP answered ${res.status} for ${url}`, res.status >= 500 || res.status === 429);
      const check = verifySignedServiceMetadata(res.body, this.opts.trust, now);
      if (!check.valid) throw new DiscoveryError(`the SMP's answer for ${participantId} is refused: ${check.reason}`, false);
      const meta = parseServiceMetadata(check.signed ?? res.body);
      if (meta.kind === 'endpoints') {
        // signed for this participant and this document type, not replayed from another
        if (meta.participantId.toLowerCase() !== participantId.toLowerCase() || meta.documentTypeId !== documentTypeId) {
          throw new DiscoveryError(`the SMP's signed answer is for ${meta.participantId} / ${meta.documentTypeId}, not the participant and document type asked`, false);
        }
        return meta.endpoints.filter((e) => isActive(e, now));
      }
      if (hop === 1) throw new DiscoveryError('the SMP redirected twice (one redirect is followed)', false);
      url = meta.href;
    }
    return undefined;
  }

  /**
   * The same lookup, hop by hop and never from the cache, with the facts of each hop for a person
   * to read (the reachability test): the NAPTR name asked and the SMP URL found; the SMP's HTTP
   * statuses, its signature verdict, the endpoint for `transportProfile` and its activation window.
   * Stops at the first hop that fails, with why; `endpoint` only when every hop passed.
   */
  async trace(participantId: string, documentTypeId: string, transportProfile: string, documentScheme = DOCUMENT_SCHEME): Promise<DiscoveryTrace> {
    const steps: TraceStep[] = [];
    const now = this.opts.now();
    let started = performance.now();
    const step = (hop: TraceStep['hop'], ok: boolean, detail: string) => {
      steps.push({ hop, ok, detail, ms: Math.round(performance.now() - started) });
      started = performance.now();
      return { steps };
    };
    const name = naptrName(participantId, this.opts.smlZone);
    let smpUrl: string | null;
    try {
      smpUrl = await smpUrlOf(participantId, this.opts);
    } catch (err) {
      return step('sml', false, `U-NAPTR ${name}: ${(err as Error).message}`);
    }
    if (!smpUrl) return step('sml', false, `U-NAPTR ${name}: no record (${participantId} is not registered in the SML zone ${this.opts.smlZone})`);
    step('sml', true, `U-NAPTR ${name} → SMP ${smpUrl}`);

    const groupUrl = serviceGroupUrl(smpUrl, participantId);
    let group: { status: number; body: string };
    try { group = await this.get(groupUrl); } catch (err) { return step('smp', false, `service group ${groupUrl}: ${(err as Error).message}`); }
    if (group.status !== 200) return step('smp', false, `service group ${groupUrl}: HTTP ${group.status}${group.status === 404 ? ` (the SMP does not know ${participantId})` : ''}`);
    let documentTypeIds: string[];
    try { documentTypeIds = documentTypeIdsOf(group.body); } catch { return step('smp', false, `service group ${groupUrl}: HTTP 200, but not a readable service group`); }
    const facts = [`service group HTTP 200 (${documentTypeIds.length} document type${documentTypeIds.length === 1 ? '' : 's'})`];
    const tries: Array<[string, string]> = [[documentScheme, documentTypeId], ...(documentScheme === DOCUMENT_SCHEME ? wildcardCandidates(documentTypeId).map((w): [string, string] => [WILDCARD_DOCUMENT_SCHEME, w]) : [])];
    for (const [scheme, id] of tries) {
      let url = serviceMetadataUrl(smpUrl, participantId, id, scheme);
      for (let redirects = 0; ; redirects++) {
        let res: { status: number; body: string };
        try { res = await this.get(url); } catch (err) { return step('smp', false, `${facts.join('; ')}; metadata ${url}: ${(err as Error).message}`); }
        if (res.status === 404) break;
        if (res.status !== 200) return step('smp', false, `${facts.join('; ')}; metadata ${url}: HTTP ${res.status}`);
        const check = verifySignedServiceMetadata(res.body, this.opts.trust, now);
        if (!check.valid) return step('smp', false, `${facts.join('; ')}; metadata ${url}: HTTP 200, signature refused: ${check.reason}`);
        const signer = check.signer!.subject.replace(/\n/g, ', ');
        const meta = parseServiceMetadata(check.signed ?? res.body);
        if (meta.kind === 'redirect') {
          if (redirects >= 1) return step('smp', false, `${facts.join('; ')}; metadata ${url}: redirected twice (one redirect is followed)`);
          facts.push(`metadata ${url} redirects to ${meta.href}`);
          url = meta.href;
          continue;
        }
        if (meta.participantId.toLowerCase() !== participantId.toLowerCase() || meta.documentTypeId !== id) {
          return step('smp', false, `${facts.join('; ')}; metadata ${url}: signed for ${meta.participantId} / ${meta.documentTypeId}, not the participant and document type asked`);
        }
        facts.push(`metadata HTTP 200, signature valid (${signer})`);
        const ofProfile = meta.endpoints.filter((e) => e.transportProfile === transportProfile);
        if (!ofProfile.length) {
          const found = [...new Set(meta.endpoints.map((e) => e.transportProfile || '(none)'))];
          return step('smp', false, `${facts.join('; ')}; no endpoint with transport profile ${transportProfile} (${found.length ? `found: ${found.join(', ')}` : 'no endpoint at all'})`);
        }
        const endpoint = ofProfile.find((e) => isActive(e, now));
        const windowOf = (e: Endpoint) => `activation ${e.activationDate ?? 'open'} – expiration ${e.expirationDate ?? 'open'}`;
        if (!endpoint) return step('smp', false, `${facts.join('; ')}; the ${transportProfile} endpoint ${ofProfile[0]!.url} is outside its activation window (${windowOf(ofProfile[0]!)}; now ${now.toISOString()})`);
        if (!endpoint.url) return step('smp', false, `${facts.join('; ')}; the ${transportProfile} endpoint has no address`);
        facts.push(`endpoint ${endpoint.url} (${transportProfile}, ${windowOf(endpoint)})`);
        return { ...step('smp', true, facts.join('; ')), endpoint };
      }
    }
    return step('smp', false, `${facts.join('; ')}; no service metadata for ${documentTypeId} (the service group lists: ${documentTypeIds.join(', ') || 'nothing'})`);
  }

  private async get(url: string): Promise<{ status: number; body: string }> {
    try {
      return await this.opts.get(url);
    } catch (err) {
      throw new DiscoveryError(`the SMP did not answer: ${(err as Error).message}`, true);
    }
  }
}
