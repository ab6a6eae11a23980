/**
 * Onboarding an EGS unit with ZATCA (the Fatoora portal's flow):
 * 1. a secp256k1 key and a CSR carrying ZATCA's extensions — the certificate template name
 *    (1.3.6.1.4.1.311.20.2: `ZATCA-Code-Signing` in production, `PREZATCA-Code-Signing` in
 *    simulation, `TSTZATCA-Code-Signing` in the developer portal) and a subjectAltName directory
 *    name with the EGS serial (SN `1-<solution>|2-<model>|3-<serial>`), the VAT number (UID), the
 *    invoice types it issues (title, `1100`: standard and simplified), its address (registeredAddress)
 *    and industry (businessCategory); built with node-forge's ASN.1 and signed with node's crypto
 *    (node-forge signs RSA requests only);
 * 2. `POST /compliance` with the portal's one-time password (header `OTP`) → the compliance CSID
 *    (`binarySecurityToken`, `secret`, `requestID`);
 * 3. the compliance checks: one sample of each invoice type the unit issues, stamped with the
 *    compliance CSID, to `POST /compliance/invoices` (HTTP Basic `token:secret`);
 * 4. `POST /production/csids` with `compliance_request_id` → the production CSID the connector runs with.
 * `onboard` does it all against a configurable base URL; `onboard-cli.ts` is the operator command.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import type { ConnectorHost } from '../sdk/index.ts';
import { pemSigner } from '../clearance-kit/xades.ts';
import type { CanonicalInvoice } from '../../mappings/canonical/model.ts';
import { FIRST_PIH, type ZatcaInvoiceKind } from '../../mappings/zatca/index.ts';
import { stampInvoice } from './stamp.ts';

const { asn1 } = forge;
const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  extensionRequest: '1.2.840.113549.1.9.14',
  templateName: '1.3.6.1.4.1.311.20.2',
  subjectAltName: '2.5.29.17',
  C: '2.5.4.6', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3',
  SN: '2.5.4.4', UID: '0.9.2342.19200300.100.1.1', title: '2.5.4.12', registeredAddress: '2.5.4.26', businessCategory: '2.5.4.15',
} as const;

export interface EgsDescription {
  /** The EGS unit's common name (its id at the taxpayer). */
  commonName: string;
  /** `1-<solution name>|2-<model or version>|3-<serial>`. */
  serialNumber: string;
  organization: string;
  organizationUnit: string;
  /** The VAT number, 15 digits 3…3. */
  vatNumber: string;
  /** Four digits: standard, simplified, (reserved), (reserved) — `1100` issues both kinds. */
  invoiceTypes: string;
  location: string;
  industry: string;
  /** `ZATCA-Code-Signing` (production), `PREZATCA-Code-Signing` (simulation), `TSTZATCA-Code-Signing` (developer portal). */
  templateName: string;
}

const seq = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
const set = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, items);
const oid = (o: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o).getBytes());
const utf8 = (s: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTF8, false, forge.util.encodeUtf8(s));
const der = (a: forge.asn1.Asn1) => asn1.toDer(a).getBytes();
const fromNode = (b: Buffer) => asn1.fromDer(forge.util.createBuffer(b.toString('binary')));

function name(rdns: Array<[string, string]>): forge.asn1.Asn1 {
  return seq(rdns.map(([o, v]) => set([seq([oid(o), utf8(v)])])));
}

/** A new EGS key: EC on secp256k1, the curve ZATCA requires. PEM (PKCS#8). */
export function newEgsKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The CSR (PEM) of an EGS unit, with ZATCA's extensions, signed by its key (ECDSA-SHA256). */
export function egsCsr(key: KeyObject, egs: EgsDescription): string {
  if (!/^3\d{13}3$/.test(egs.vatNumber)) throw new Error('the VAT number is 15 digits starting and ending with 3');
  if (!/^[01]{4}$/.test(egs.invoiceTypes)) throw new Error('invoiceTypes is four 0/1 digits (1100: standard and simplified)');
  const spki = fromNode(createPublicKey(key).export({ type: 'spki', format: 'der' }));
  const extensions = seq([
    seq([oid(OID.templateName), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, der(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.PRINTABLESTRING, false, egs.templateName)))]),
    seq([oid(OID.subjectAltName), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, der(seq([
      // GeneralName directoryName [4] (explicit: Name is a CHOICE).
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 4, true, [name([[OID.SN, egs.serialNumber], [OID.UID, egs.vatNumber], [OID.title, egs.invoiceTypes], [OID.registeredAddress, egs.location], [OID.businessCategory, egs.industry]])]),
    ])))]),
  ]);
  const info = seq([
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, '\x00'),
    name([[OID.C, 'SA'], [OID.OU, egs.organizationUnit], [OID.O, egs.organization], [OID.CN, egs.commonName]]),
    spki,
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [seq([oid(OID.extensionRequest), set([extensions])])]),
  ]);
  const signature = sign('sha256', Buffer.from(der(info), 'binary'), key);
  const csr = seq([info, seq([oid(OID.ecdsaWithSha256)]), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\x00${signature.toString('binary')}`)]);
  const body = Buffer.from(der(csr), 'binary').toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** A CSID as ZATCA issues it: the token is base64 of the certificate's base64 DER. */
export interface Csid { binarySecurityToken: string; secret: string; requestId: string; certificatePem: string }

/** The certificate a binarySecurityToken carries. */
export function certificateOfToken(binarySecurityToken: string): X509Certificate {
  return new X509Certificate(Buffer.from(Buffer.from(binarySecurityToken, 'base64').toString('ascii'), 'base64'));
}

export const basicAuth = (csid: { binarySecurityToken: string; secret: string }) => `Basic ${Buffer.from(`${csid.binarySecurityToken}:${csid.secret}`).toString('base64')}`;

type Http = ConnectorHost['http'];

async function postJson(http: Http, url: string, headers: Record<string, string>, body: unknown, timeoutMs: number): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-language': 'en', 'accept-version': 'V2', ...headers },
    body: JSON.stringify(body),
    timeoutMs,
  });
  let json: Record<string, unknown> = {};
  try { json = JSON.parse(res.text()) as Record<string, unknown>; } catch { /* a body that is not JSON: the status speaks */ }
  return { status: res.status, json };
}

function csidOf(what: string, status: number, json: Record<string, unknown>): Csid {
  const token = json.binarySecurityToken;
  const secret = json.secret;
  if (status !== 200 || typeof token !== 'string' || typeof secret !== 'string') {
    throw new Error(`ZATCA gave no ${what} (HTTP ${status}${json.dispositionMessage ? `, ${String(json.dispositionMessage)}` : ''}${json.errors ? `: ${JSON.stringify(json.errors)}` : ''})`);
  }
  return { binarySecurityToken: token, secret, requestId: String(json.requestID ?? ''), certificatePem: certificateOfToken(token).toString() };
}

/** One sample of each invoice type the unit issues, as the compliance checks ask. */
export function complianceSamples(seller: CanonicalInvoice['seller'], invoiceTypes: string): Array<{ kind: ZatcaInvoiceKind; type: string; invoice: CanonicalInvoice }> {
  const base = (n: number, type: 'invoice' | 'credit-note' | 'debit-note', b2c: boolean): CanonicalInvoice => ({
    kind: type === 'credit-note' ? 'credit-note' : 'invoice', customizationId: 'urn:cen.eu:en16931:2017', number: `COMPLIANCE-${n}`, issueDate: '2026-01-01', typeCode: type === 'invoice' ? '380' : type === 'credit-note' ? '381' : '383', currency: 'SAR', seller,
    buyer: b2c ? { name: 'Compliance check' } : { name: 'Compliance check buyer', vatId: '399999999900003', address: { line1: 'Street', city: 'Riyadh', postalCode: '12345', country: 'SA' } },
    ...(type !== 'invoice' ? { notes: [{ text: 'Compliance check' }], precedingInvoices: [{ number: 'COMPLIANCE-1' }] } : {}),
    totals: { lineNetTotal: '100.00', taxExclusive: '100.00', vatTotal: '15.00', taxInclusive: '115.00', payable: '115.00' },
    vatBreakdown: [{ taxableAmount: '100.00', taxAmount: '15.00', category: 'S', rate: '15.00' }],
    lines: [{ id: '1', quantity: '1', unit: 'PCE', netAmount: '100.00', item: { name: 'Compliance check' }, price: { netPrice: '100.00' }, vat: { category: 'S', rate: '15.00' } }],
  } as CanonicalInvoice);
  const kinds: ZatcaInvoiceKind[] = [...(invoiceTypes[0] === '1' ? ['standard' as const] : []), ...(invoiceTypes[1] === '1' ? ['simplified' as const] : [])];
  let n = 0;
  return kinds.flatMap((kind) => (['invoice', 'credit-note', 'debit-note'] as const).map((type) => ({ kind, type, invoice: base(++n, type, kind === 'simplified') })));
}

export interface OnboardOptions {
  baseUrl: string;
  otp: string;
  /** The EGS key (PEM); `newEgsKey()` makes one. */
  privateKeyPem: string;
  egs: EgsDescription;
  /** The seller as the samples name it (name, VAT id SA3…3, address). */
  seller: CanonicalInvoice['seller'];
  timeoutMs?: number;
  /** The clock (the platform's), for the samples' issue time. */
  now?: () => Date;
}

export interface Onboarded {
  compliance: Csid;
  production: Csid;
  /** The compliance checks' outcomes, one per sample. */
  checks: Array<{ kind: ZatcaInvoiceKind; type: string; status: string }>;
}

/** CSR → compliance CSID → compliance checks → production CSID. Throws with ZATCA's words when a step fails. */
export async function onboard(http: Http, o: OnboardOptions): Promise<Onboarded> {
  const base = o.baseUrl.replace(/\/+$/, '');
  const timeoutMs = o.timeoutMs ?? 30_000;
  const key = egsKey(o.privateKeyPem);
  const csr = egsCsr(key, o.egs);
  const c = await postJson(http, `${base}/compliance`, { otp: o.otp }, { csr: Buffer.from(csr).toString('base64') }, timeoutMs);
  const compliance = csidOf('compliance CSID', c.status, c.json);

  const signer = pemSigner(o.privateKeyPem, compliance.certificatePem);
  const checks: Onboarded['checks'] = [];
  let pih = FIRST_PIH;
  let icv = 0;
  for (const sample of complianceSamples(o.seller, o.egs.invoiceTypes)) {
    const uuid = randomUUID();
    const now = (o.now ?? (() => new Date()))();
    const stamped = await stampInvoice(sample.invoice, { kind: sample.kind, uuid, issueTime: now.toISOString().slice(11, 19), icv: ++icv, pih }, signer);
    pih = stamped.invoiceHash;
    const r = await postJson(http, `${base}/compliance/invoices`, { authorization: basicAuth(compliance) }, { invoiceHash: stamped.invoiceHash, uuid, invoice: Buffer.from(stamped.xml).toString('base64') }, timeoutMs);
    const results = r.json.validationResults as { status?: string; errorMessages?: Array<{ code?: string; message?: string }> } | undefined;
    const status = results?.status ?? `HTTP ${r.status}`;
    checks.push({ kind: sample.kind, type: sample.type, status });
    if (r.status >= 300 || (status !== 'PASS' && status !== 'WARNING')) {
      throw new Error(`the ${sample.kind} ${sample.type} compliance check failed (${status}): ${(results?.errorMessages ?? []).map((e) => `${e.code}: ${e.message}`).join('; ')}`);
    }
  }
  const p = await postJson(http, `${base}/production/csids`, { authorization: basicAuth(compliance) }, { compliance_request_id: compliance.requestId }, timeoutMs);
  return { compliance, production: csidOf('production CSID', p.status, p.json), checks };
}

/** The EGS key, which must be EC on secp256k1. */
export function egsKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp256k1') throw new Error('the EGS key must be an EC key on secp256k1');
  return key;
}
