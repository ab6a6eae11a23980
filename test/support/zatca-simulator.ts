/**
 * ZATCA's Fatoora API on 127.0.0.1, as far as the developer portal publishes it (JSON bodies,
 * `Accept-Version: V2`, HTTP Basic with the CSID's `binarySecurityToken:secret`):
 * - `POST /compliance` (header `OTP`, body `{csr}`: base64 of the PEM CSR) → the compliance CSID,
 *   a certificate our test CA issues for the CSR (its extensions copied; the ZATCA template name required);
 * - `POST /compliance/invoices` `{invoiceHash, uuid, invoice}` → the checks below, `PASS` or errors;
 * - `POST /production/csids` `{compliance_request_id}` (compliance CSID auth) → the production CSID,
 *   once a standard and a simplified sample passed;
 * - `POST /invoices/clearance/single` (`Clearance-Status: 1`, standard invoices) → `CLEARED` with the
 *   cleared invoice: the taxpayer's invoice with ZATCA's QR (tag 7 ZATCA's ECDSA signature of the
 *   invoice hash, tag 8 ZATCA's public key);
 * - `POST /invoices/reporting/single` (`Clearance-Status: 0`, simplified invoices) → `REPORTED`.
 *
 * Each invoice is checked independently of our code: its hash recomputed with libxml2 (XPath removal,
 * C14N 1.1, SHA-256) against `invoiceHash` and the signature's DigestValue; the ECDSA signature
 * verified with node's crypto and the KeyInfo certificate, which must be the CSID's; the signed
 * properties' digest (libxml2 exclusive C14N); the QR decoded (tag 6 the hash, tag 7 the signature);
 * the UUID; the invoice type against the endpoint; the chain: the ICV must grow and the PIH must be
 * the hash of the unit's previous invoice when ZATCA has it (a gap gives a warning, 202). Business
 * rules checked: BR-KSA-39 (seller VAT 3…3), BR-KSA-66/67 (Saudi postal codes: 5 digits).
 * Rejections answer 400 with `validationResults.errorMessages` `{type, code, category, message,
 * status}` and `NOT_CLEARED` / `NOT_REPORTED`. The same invoice again answers the first verdict.
 * Test controls: `failNext(n, status, retryAfter?)` (429, 503 …), `hangNext(n)` (a timeout).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, createPublicKey, randomBytes, sign, verify, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { XmlDocument } from 'libxml2-wasm';
import { decodeZatcaQr, encodeZatcaQr, FIRST_PIH } from '../../mappings/zatca/index.ts';
import { freePort } from './servers.ts';
import { TestCa } from './openssl-pki.ts';

const NS = {
  ext: 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  inv: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xades: 'http://uri.etsi.org/01903/v1.3.2#',
};

export interface ValidationMessage { type: 'ERROR' | 'WARNING' | 'INFO'; code: string; category: string; message: string; status: 'ERROR' | 'WARNING' | 'PASS' }
interface Csid { token: string; secret: string; cert: X509Certificate; kind: 'compliance' | 'production'; requestId: string; csrPem: string; passed: Set<string> }
export interface Submission { endpoint: 'clearance' | 'reporting' | 'compliance'; uuid: string; icv: number; pih: string; hash: string; status: number; codes: string[]; egs: string; xml: string }

export interface ZatcaSimulator {
  url: string;
  otp: string;
  /** ZATCA's own stamping certificate (its QR's tag 8). */
  zatcaCertificate: X509Certificate;
  /** Every invoice received (after authentication), in order. */
  submissions: Submission[];
  /** Answer the next n invoice submissions with this status (Retry-After when given). */
  failNext(n: number, status: number, retryAfterSeconds?: number): void;
  /** Never answer the next n invoice submissions (the client's timeout fires). */
  hangNext(n: number): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const error = (code: string, message: string, category = 'KSA'): ValidationMessage => ({ type: 'ERROR', code, category, message, status: 'ERROR' });
const warning = (code: string, message: string, category = 'KSA'): ValidationMessage => ({ type: 'WARNING', code, category, message, status: 'WARNING' });

/** What libxml2 (not our code) makes of a submitted invoice. */
function examine(xml: string): { hash: string; facts: Record<string, string | undefined>; propsDigestOk: boolean | null } {
  const doc = XmlDocument.fromString(xml);
  try {
    const t = (x: string) => doc.get(x, NS)?.content.trim();
    const facts = {
      uuid: t('/inv:Invoice/cbc:UUID'),
      typeName: (doc.get('/inv:Invoice/cbc:InvoiceTypeCode/@name', NS) as { value?: string } | null)?.value,
      icv: t("/inv:Invoice/cac:AdditionalDocumentReference[cbc:ID='ICV']/cbc:UUID"),
      pih: t("/inv:Invoice/cac:AdditionalDocumentReference[cbc:ID='PIH']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject"),
      qr: t("/inv:Invoice/cac:AdditionalDocumentReference[cbc:ID='QR']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject"),
      sellerVat: t('/inv:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID'),
      sellerName: t('/inv:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName'),
      sellerPostal: t('/inv:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cbc:PostalZone'),
      sellerCountry: t('/inv:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode'),
      buyerPostal: t('/inv:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/cbc:PostalZone'),
      buyerCountry: t('/inv:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode'),
      digest: t("//ds:Reference[@Id='invoiceSignedData']/ds:DigestValue"),
      propsDigest: t("//ds:Reference[@URI='#xadesSignedProperties']/ds:DigestValue"),
      signature: t('//ds:SignatureValue'),
      certificate: t('//ds:KeyInfo/ds:X509Data/ds:X509Certificate'),
      issueDate: t('/inv:Invoice/cbc:IssueDate'),
      issueTime: t('/inv:Invoice/cbc:IssueTime'),
      total: t('/inv:Invoice/cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount'),
      vat: t('/inv:Invoice/cac:TaxTotal[cac:TaxSubtotal]/cbc:TaxAmount'),
    };
    const props = doc.get('//xades:SignedProperties', NS);
    const propsDigestOk = props && facts.propsDigest
      ? createHash('sha256').update((props as unknown as { canonicalizeToString(o: { mode: number }): string }).canonicalizeToString({ mode: 1 })).digest('base64') === facts.propsDigest
      : null;
    for (const n of doc.find("//ext:UBLExtensions | //cac:Signature | //cac:AdditionalDocumentReference[cbc:ID='QR']", NS)) n.remove();
    const hash = createHash('sha256').update(doc.canonicalizeToString({ mode: 2 })).digest('base64');
    return { hash, facts, propsDigestOk };
  } finally {
    doc.dispose();
  }
}

export async function startZatcaSimulator(options: { otp?: string } = {}): Promise<ZatcaSimulator> {
  const port = await freePort();
  const otp = options.otp ?? '123345';
  const ca = new TestCa('ZATCA Test CA');
  const zatcaKey = ca.ca.keyPem;
  const zatcaCertificate = new X509Certificate(ca.ca.certPem);
  const csids = new Map<string, Csid>();
  /** Per EGS unit (certificate public key): the hash of each ICV it submitted, and the highest ICV. */
  const chains = new Map<string, { hashes: Map<number, string>; last: number }>();
  const verdicts = new Map<string, { status: number; body: unknown }>();
  const submissions: Submission[] = [];
  const failures: Array<{ status: number; retryAfter?: number }> = [];
  let hangs = 0;

  const issue = (csrPem: string, kind: Csid['kind'], requestId: string): Csid => {
    const certPem = ca.issue(csrPem);
    const cert = new X509Certificate(certPem);
    const token = Buffer.from(cert.raw.toString('base64')).toString('base64');
    const csid: Csid = { token, secret: randomBytes(24).toString('base64'), cert, kind, requestId, csrPem, passed: new Set() };
    csids.set(token, csid);
    return csid;
  };

  const authenticate = (req: IncomingMessage, kind: Csid['kind']): Csid | undefined => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return undefined;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const i = decoded.lastIndexOf(':');
    const csid = csids.get(decoded.slice(0, i));
    return csid && csid.secret === decoded.slice(i + 1) && csid.kind === kind ? csid : undefined;
  };

  /** The checks of one invoice submission; what ZATCA answers. */
  const judge = (endpoint: Submission['endpoint'], csid: Csid, body: { invoiceHash?: string; uuid?: string; invoice?: string }): { status: number; body: Record<string, unknown> } => {
    const errors: ValidationMessage[] = [];
    const warnings: ValidationMessage[] = [];
    const xml = Buffer.from(String(body.invoice ?? ''), 'base64').toString('utf8');
    let seen: ReturnType<typeof examine>;
    try {
      seen = examine(xml);
    } catch (err) {
      return { status: 400, body: { validationResults: { status: 'ERROR', infoMessages: [], warningMessages: [], errorMessages: [error('XSD_SCHEMA_ERROR', `the invoice is not well-formed XML: ${(err as Error).message}`, 'XSD validation')] } } };
    }
    const f = seen.facts;
    const kind = f.typeName?.startsWith('01') ? 'standard' : f.typeName?.startsWith('02') ? 'simplified' : undefined;
    if (!kind) errors.push(error('BR-KSA-06', 'The invoice transaction code (KSA-2) must be 01… (standard) or 02… (simplified)'));
    if (endpoint === 'clearance' && kind !== 'standard') errors.push(error('invoiceTypeCode', 'Only standard invoices are cleared; report simplified invoices', 'CLEARANCE'));
    if (endpoint === 'reporting' && kind !== 'simplified') errors.push(error('invoiceTypeCode', 'Only simplified invoices are reported; clear standard invoices', 'REPORTING'));
    if (body.uuid !== f.uuid) errors.push(error('invalid-uuid', 'The uuid of the request is not the invoice\'s UUID'));
    if (body.invoiceHash !== seen.hash || f.digest !== seen.hash) errors.push(error('invalid-invoice-hash', 'The invoice hash is not the hash of the invoice (C14N 1.1 without UBLExtensions, Signature and QR)', 'SIGNATURE'));
    let signer: X509Certificate | undefined;
    try { signer = f.certificate ? new X509Certificate(Buffer.from(f.certificate, 'base64')) : undefined; } catch { signer = undefined; }
    if (!signer || !signer.raw.equals(csid.cert.raw)) errors.push(error('certificate-mismatch', 'The signing certificate is not the CSID\'s', 'SIGNATURE'));
    else if (!f.signature || !verify('sha256', Buffer.from(seen.hash, 'base64'), signer.publicKey, Buffer.from(f.signature, 'base64'))) {
      errors.push(error('invalid-signature', 'The cryptographic stamp does not verify with the CSID\'s public key', 'SIGNATURE'));
    }
    if (seen.propsDigestOk !== true) errors.push(error('signed-properties-hashing', 'The signed properties do not hash to their DigestValue', 'SIGNATURE'));
    try {
      const qr = f.qr ? decodeZatcaQr(f.qr) : undefined;
      if (!qr || qr.get(6)?.toString() !== seen.hash || qr.get(7)?.toString() !== f.signature || !qr.get(8)) errors.push(error('QRCODE_INVALID', 'The QR code does not carry the invoice hash, the signature and the public key', 'QRCODE'));
      else if (kind === 'simplified' && !qr.get(9)) errors.push(error('QRCODE_INVALID', 'A simplified invoice\'s QR code carries the certificate signature (tag 9)', 'QRCODE'));
    } catch {
      errors.push(error('QRCODE_INVALID', 'The QR code is not a TLV', 'QRCODE'));
    }
    if (!/^3\d{13}3$/.test(f.sellerVat ?? '')) errors.push(error('BR-KSA-39', 'The seller VAT registration number must be 15 digits, beginning and ending with 3'));
    if (f.sellerCountry === 'SA' && !/^\d{5}$/.test(f.sellerPostal ?? '')) errors.push(error('BR-KSA-66', 'The seller postal code (BT-38) must be 5 digits for an address in Saudi Arabia'));
    if (kind === 'standard' && f.buyerCountry === 'SA' && !/^\d{5}$/.test(f.buyerPostal ?? '')) errors.push(error('BR-KSA-67', 'The buyer postal code (BT-53) must be 5 digits for an address in Saudi Arabia'));

    // The chain of this EGS unit (its key).
    const egs = createHash('sha256').update(csid.cert.publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
    const chain = chains.get(egs) ?? { hashes: new Map<number, string>(), last: 0 };
    const icv = Number(f.icv);
    if (!Number.isSafeInteger(icv) || icv < 1) errors.push(error('BR-KSA-33', 'The invoice counter value (KSA-16) must be a positive integer'));
    else if (endpoint !== 'compliance') {
      const previous = icv === 1 ? FIRST_PIH : chain.hashes.get(icv - 1);
      if (chain.hashes.has(icv) && chain.hashes.get(icv) !== seen.hash) errors.push(error('invalid-icv', `The invoice counter ${icv} was already used for another invoice`));
      else if (previous === undefined) warnings.push(warning('BR-KSA-61', `The previous invoice (counter ${icv - 1}) has not reached ZATCA: the chain cannot be checked`));
      else if (previous !== f.pih) errors.push(error('invalid-previous-invoice-hash', `The previous invoice hash (KSA-13) is not the hash of invoice ${icv - 1} of this EGS unit`));
    }

    const ok = errors.length === 0;
    const results = { status: ok ? (warnings.length ? 'WARNING' : 'PASS') : 'ERROR', infoMessages: [{ type: 'INFO', code: 'XSD_ZATCA_VALID', category: 'XSD validation', message: 'Complied with UBL 2.1 standards in line with ZATCA specifications', status: 'PASS' }], warningMessages: warnings, errorMessages: errors };
    const status = ok ? (warnings.length ? 202 : 200) : 400;
    // The invoice entered the unit's chain when it verified as this unit's (a business rejection included).
    if (endpoint !== 'compliance' && Number.isSafeInteger(icv) && !errors.some((e) => e.category === 'SIGNATURE' || e.code.startsWith('invalid-'))) {
      chain.hashes.set(icv, seen.hash);
      chain.last = Math.max(chain.last, icv);
      chains.set(egs, chain);
    }
    submissions.push({ endpoint, uuid: String(body.uuid), icv, pih: f.pih ?? '', hash: seen.hash, status, codes: [...errors, ...warnings].map((e) => e.code), egs, xml });
    if (endpoint === 'compliance') {
      if (ok && kind) csid.passed.add(kind);
      return { status, body: { validationResults: results, ...(kind === 'standard' ? { clearanceStatus: ok ? 'CLEARED' : 'NOT_CLEARED' } : { reportingStatus: ok ? 'REPORTED' : 'NOT_REPORTED' }) } };
    }
    if (endpoint === 'reporting') return { status, body: { validationResults: results, reportingStatus: ok ? 'REPORTED' : 'NOT_REPORTED' } };
    if (!ok) return { status, body: { validationResults: results, clearanceStatus: 'NOT_CLEARED', clearedInvoice: null } };
    // Cleared: ZATCA's QR on the taxpayer's invoice (its own signature of the hash, its public key).
    const zatcaSignature = sign('sha256', Buffer.from(seen.hash, 'base64'), zatcaKey).toString('base64');
    const qr = encodeZatcaQr({
      sellerName: f.sellerName ?? '', vatNumber: f.sellerVat ?? '', timestamp: `${f.issueDate}T${f.issueTime}`, total: f.total ?? '', vatTotal: f.vat ?? '',
      invoiceHash: seen.hash, signature: zatcaSignature, publicKey: createPublicKey(zatcaKey).export({ type: 'spki', format: 'der' }),
    });
    const cleared = xml.replace(/(<cac:AdditionalDocumentReference><cbc:ID>QR<\/cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject[^>]*>)[^<]*/, `$1${qr}`);
    return { status, body: { validationResults: results, clearanceStatus: 'CLEARED', clearedInvoice: Buffer.from(cleared).toString('base64') } };
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = await bodyOf(req);
      let input: Record<string, unknown> = {};
      try { input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>; } catch { return json(res, 400, { code: 'Invalid-Request', message: 'the body is not JSON' }); }
      if (req.method !== 'POST') return json(res, 405, { message: 'POST only' });

      if (url.pathname === '/compliance') {
        if (req.headers.otp !== otp) return json(res, 400, { errors: ['Invalid-OTP'], dispositionMessage: 'NOT_ISSUED' });
        const csrPem = Buffer.from(String(input.csr ?? ''), 'base64').toString('utf8');
        let text = '';
        try {
          text = execFileSync('openssl', ['req', '-noout', '-text', '-verify'], { input: csrPem, stdio: 'pipe' }).toString();
        } catch {
          return json(res, 400, { errors: ['Invalid-CSR'], dispositionMessage: 'NOT_ISSUED' });
        }
        if (!/ZATCA-Code-Signing/.test(text) || !/secp256k1/.test(text)) return json(res, 400, { errors: ['Invalid-CSR: a secp256k1 key and the ZATCA-Code-Signing template are required'], dispositionMessage: 'NOT_ISSUED' });
        const csid = issue(csrPem, 'compliance', String(Date.now()) + String(Math.floor(Math.random() * 1000)));
        return json(res, 200, { requestID: Number(csid.requestId), dispositionMessage: 'ISSUED', binarySecurityToken: csid.token, secret: csid.secret, errors: null });
      }
      if (url.pathname === '/production/csids') {
        const csid = authenticate(req, 'compliance');
        if (!csid) return json(res, 401, {});
        if (String(input.compliance_request_id) !== csid.requestId) return json(res, 400, { code: 'Invalid-Request', message: 'compliance_request_id is not this CSID\'s request' });
        if (!csid.passed.has('standard') || !csid.passed.has('simplified')) return json(res, 400, { code: 'Missing-ComplianceSteps', message: 'The compliance checks have not passed' });
        const production = issue(csid.csrPem, 'production', String(Date.now()));
        return json(res, 200, { requestID: Number(production.requestId), tokenType: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3', dispositionMessage: 'ISSUED', binarySecurityToken: production.token, secret: production.secret });
      }
      const endpoint = url.pathname === '/compliance/invoices' ? 'compliance' : url.pathname === '/invoices/clearance/single' ? 'clearance' : url.pathname === '/invoices/reporting/single' ? 'reporting' : undefined;
      if (!endpoint) return json(res, 404, { message: 'not found' });
      const csid = authenticate(req, endpoint === 'compliance' ? 'compliance' : 'production');
      if (!csid) return json(res, 401, { timestamp: Date.now(), status: 401, error: 'Unauthorized', message: 'Full authentication is required to access this resource' });
      if (hangs > 0) { hangs--; return; }
      const failure = failures.shift();
      if (failure) return json(res, failure.status, { message: 'simulated failure' }, failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {});
      if (endpoint !== 'compliance' && req.headers['clearance-status'] !== (endpoint === 'clearance' ? '1' : '0')) return json(res, 400, { message: 'Clearance-Status header does not match the endpoint' });
      const key = `${endpoint}:${String(input.uuid)}:${String(input.invoiceHash)}`;
      const known = verdicts.get(key);
      if (known) return json(res, known.status, known.body);
      const verdict = judge(endpoint, csid, input as { invoiceHash?: string; uuid?: string; invoice?: string });
      verdicts.set(key, verdict);
      return json(res, verdict.status, verdict.body);
    })().catch((err: unknown) => { if (!res.headersSent) json(res, 500, { message: (err as Error).message }); });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    otp,
    zatcaCertificate,
    submissions,
    failNext(n, status, retryAfter) { for (let i = 0; i < n; i++) failures.push({ status, ...(retryAfter !== undefined ? { retryAfter } : {}) }); },
    hangNext(n) { hangs += n; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

