/**
 * The sa-zatca connector's own parts, without the network: the SDK contract suite (in-memory host);
 * the EGS CSR with ZATCA's extensions (OpenSSL reads and verifies it); the cryptographic stamp — the
 * ECDSA signature of the invoice hash verified with node's crypto and the CSID certificate, the
 * signed properties' digest recomputed by libxml2, the QR decoded back (tags 1–9), the stamped
 * invoice XSD-valid; the invoice chain — counter and PIH advance, survive a restart (a new chain
 * object on the same state), a re-sent document gets the invoice it was first issued as, two
 * replicas (chain objects) issuing at once share one gapless chain, and a state file of the earlier
 * version is imported once.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { XmlDocument } from 'libxml2-wasm';
import forge from 'node-forge';
import { describeConnectorContract, memoryHost, memoryState, sampleMessage } from '../../../adapters/sdk/contract-suite.ts';
import saZatca, { invoiceKindOf } from '../../../adapters/sa-zatca/sa-zatca.connector.ts';
import { egsCsr, newEgsKey, egsKey, type EgsDescription } from '../../../adapters/sa-zatca/onboarding.ts';
import { stampInvoice, certificateSignature } from '../../../adapters/sa-zatca/stamp.ts';
import { InvoiceChain } from '../../../adapters/sa-zatca/chain.ts';
import { pemSigner } from '../../../adapters/clearance-kit/xades.ts';
import { decodeZatcaQr, zatcaInvoiceHash, FIRST_PIH } from '../../../mappings/zatca/index.ts';
import { xsdErrors } from '../mappings/support/xsd.ts';
import { TestCa } from '../../support/openssl-pki.ts';
import { saudiInvoice, saudiB2cInvoice } from '../../support/saudi-invoice.ts';

const egs: EgsDescription = {
  commonName: 'TST-886431145-399999999900003', serialNumber: '1-TST|2-TST|3-ed22f1d8-e6a2-1118-9b58-d9a8f11e445f', organization: 'Maximum Speed Tech Supply LTD',
  organizationUnit: 'Riyadh Branch', vatNumber: '300075588700003', invoiceTypes: '1100', location: 'RRRD2929', industry: 'Supply activities', templateName: 'ZATCA-Code-Signing',
};
const keyPem = newEgsKey();
const ca = new TestCa('ZATCA unit test CA');
const csr = egsCsr(egsKey(keyPem), egs);
const certPem = ca.issue(csr);
const token = Buffer.from(new X509Certificate(certPem).raw.toString('base64')).toString('base64');

const config = { baseUrl: 'http://127.0.0.1:9/e-invoicing/simulation', binarySecurityToken: token, egsUnit: 'contract', timeoutMs: 2000 };
const secrets = { privateKey: keyPem, apiSecret: 'contract-csid-secret' };

describeConnectorContract(saZatca, { known: { country: 'SA' }, unknown: { country: 'SA' }, directory: [], documentType: 'invoice', config, secrets });

describe('the EGS CSR', () => {
  it('is a secp256k1 request OpenSSL verifies, with the ZATCA template name and the EGS facts in its subjectAltName', () => {
    const text = execFileSync('openssl', ['req', '-noout', '-text', '-verify'], { input: csr, stdio: 'pipe' }).toString();
    expect(text).toContain('ASN1 OID: secp256k1');
    expect(text).toMatch(/Subject: C\s*=\s*SA, OU\s*=\s*Riyadh Branch, O\s*=\s*Maximum Speed Tech Supply LTD, CN\s*=\s*TST-886431145-399999999900003/);
    expect(text).toContain('ZATCA-Code-Signing');
    expect(text).toMatch(/DirName:.*SN\s*=\s*1-TST\|2-TST\|3-ed22f1d8-e6a2-1118-9b58-d9a8f11e445f.*UID\s*=\s*300075588700003.*title\s*=\s*1100.*registeredAddress\s*=\s*RRRD2929.*businessCategory\s*=\s*Supply activities/);
    expect(() => egsCsr(egsKey(keyPem), { ...egs, vatNumber: '123' })).toThrow('15 digits');
    expect(() => egsKey(p256Key())).toThrow('secp256k1');
  });
});

function p256Key(): string {
  return execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], { stdio: 'pipe' }).toString();
}

describe('the cryptographic stamp', () => {
  const signer = pemSigner(keyPem, certPem);
  const facts = { kind: 'standard' as const, uuid: '6f4d20e0-6bfe-4a80-9389-7dabe6620f12', issueTime: '10:00:00', icv: 1, pih: FIRST_PIH };

  it('signs the invoice hash with ECDSA (node crypto verifies it with the CSID certificate), and the stamped invoice is XSD-valid', async () => {
    const stamped = await stampInvoice(saudiInvoice(), facts, signer);
    expect(zatcaInvoiceHash(stamped.xml)).toBe(stamped.invoiceHash);
    const cert = new X509Certificate(certPem);
    expect(verify('sha256', Buffer.from(stamped.invoiceHash, 'base64'), cert.publicKey, Buffer.from(stamped.signature, 'base64'))).toBe(true);
    expect(verify('sha256', Buffer.from(zatcaInvoiceHash(stamped.xml.replace('1350.00', '1351.00')), 'base64'), cert.publicKey, Buffer.from(stamped.signature, 'base64'))).toBe(false);
    expect(stamped.xml).toContain(`<ds:DigestValue>${stamped.invoiceHash}</ds:DigestValue>`);
    expect(stamped.xml).toContain(`<ds:SignatureValue>${stamped.signature}</ds:SignatureValue>`);
    expect(stamped.xml).toContain(`<ds:X509Certificate>${cert.raw.toString('base64')}</ds:X509Certificate>`);
    expect(xsdErrors(stamped.xml)).toEqual([]);
    // The signed properties' digest, recomputed by libxml2 (exclusive C14N of the element in the document).
    const doc = XmlDocument.fromString(stamped.xml);
    try {
      const props = doc.get('//xades:SignedProperties', { xades: 'http://uri.etsi.org/01903/v1.3.2#' }) as unknown as { canonicalizeToString(o: { mode: number }): string };
      const digest = createHash('sha256').update(props.canonicalizeToString({ mode: 1 })).digest('base64');
      expect(stamped.xml).toContain(`URI="#xadesSignedProperties"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${digest}</ds:DigestValue>`);
    } finally { doc.dispose(); }
  });

  it('the QR decodes back: seller, VAT, time, totals, hash, signature, public key; tag 9 on a simplified invoice', async () => {
    const stamped = await stampInvoice(saudiInvoice(), facts, signer);
    const tags = decodeZatcaQr(stamped.qr);
    expect(tags.get(1)!.toString()).toBe(saudiInvoice().seller.name);
    expect(tags.get(2)!.toString()).toBe('300075588700003');
    expect(tags.get(3)!.toString()).toBe('2026-11-25T10:00:00');
    expect([tags.get(4)!.toString(), tags.get(5)!.toString()]).toEqual(['1350.00', '150.00']);
    expect(tags.get(6)!.toString()).toBe(stamped.invoiceHash);
    expect(tags.get(7)!.toString()).toBe(stamped.signature);
    expect(tags.get(8)!.equals(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' }))).toBe(true);
    expect(tags.has(9)).toBe(false);
    const b2c = await stampInvoice(saudiB2cInvoice(), { ...facts, kind: 'simplified' }, signer);
    const b2cTags = decodeZatcaQr(b2c.qr);
    expect(b2cTags.get(9)!.equals(certificateSignature(new X509Certificate(certPem)))).toBe(true);
    // Tag 9 is the CA's signature over the certificate: it verifies with the CA's key.
    const certAsn = forge.asn1.fromDer(forge.util.createBuffer(new X509Certificate(certPem).raw.toString('binary')), { decodeBitStrings: false } as unknown as boolean);
    const tbs = Buffer.from(forge.asn1.toDer((certAsn.value as forge.asn1.Asn1[])[0]!).getBytes(), 'binary');
    expect(verify('sha256', tbs, new X509Certificate(ca.ca.certPem).publicKey, b2cTags.get(9)!)).toBe(true);
    expect(xsdErrors(b2c.xml)).toEqual([]);
  });

  it('B2B with a buyer VAT number is standard, a consumer is simplified', () => {
    expect(invoiceKindOf(saudiInvoice())).toBe('standard');
    expect(invoiceKindOf(saudiB2cInvoice())).toBe('simplified');
  });
});

describe('the invoice chain', () => {
  const make = (n: string) => async ({ icv, pih }: { icv: number; pih: string }) => ({ uuid: `u-${n}`, kind: 'standard' as const, hash: `h-${n}-${icv}-${pih.slice(0, 4)}`, xml: '', qr: '', issuedAt: '2026-11-25T10:00:00Z' });

  it('advances ICV and PIH, survives a restart, and re-issues nothing for a re-sent document', async () => {
    const state = memoryState();
    const chain = new InvoiceChain(state, 'egs-a');
    const a = await chain.issue('doc-a', make('a'));
    expect(a.invoice).toMatchObject({ icv: 1, hash: 'h-a-1-NWZl' });
    const b = await chain.issue('doc-b', make('b'));
    expect(b.invoice.icv).toBe(2);
    // The restarted unit (a new object on the same state) continues the chain.
    const restarted = new InvoiceChain(state, 'egs-a');
    expect(await restarted.head()).toEqual({ icv: 2, pih: 'h-b-2-h-a-', pending: 2 });
    expect(await restarted.issue('doc-a', make('other'))).toEqual({ invoice: a.invoice, resent: true });
    expect(await restarted.issue('doc-b', make('other'))).toEqual({ invoice: b.invoice, resent: true });
    expect(await restarted.pending('u-a')).toEqual(a.invoice);
    await restarted.settle('u-a');
    expect(await restarted.pending('u-a')).toBeUndefined();
    expect((await restarted.head()).pending).toBe(1);
    // Settling the last invoice too: the head forgets it, the chain goes on from its hash.
    await restarted.settle('u-b');
    expect(await restarted.head()).toEqual({ icv: 2, pih: 'h-b-2-h-a-', pending: 0 });
    // Concurrent issues queue: distinct counters.
    const many = await Promise.all([1, 2, 3, 4].map((i) => restarted.issue(`doc-c${i}`, make(`c${i}`))));
    expect(many.map((m) => m.invoice.icv).sort()).toEqual([3, 4, 5, 6]);
    // Another unit has its own chain.
    expect((await new InvoiceChain(state, 'egs-b').issue('doc-a', make('x'))).invoice.icv).toBe(1);
    expect(() => new InvoiceChain(state, '../etc')).toThrow('egsUnit');
  });

  it('two replicas issuing at once for one unit give ICVs 1..n without gap or duplicate, each PIH the previous hash', async () => {
    const state = memoryState();
    const replicas = [new InvoiceChain(state, 'egs-r'), new InvoiceChain(state, 'egs-r')];
    const made: Array<{ icv: number; pih: string; hash: string }> = [];
    const stamp = (n: string) => async ({ icv, pih }: { icv: number; pih: string }) => {
      const hash = createHash('sha256').update(`${n}/${icv}/${pih}`).digest('base64');
      made.push({ icv, pih, hash });
      return { uuid: `u-${n}-${made.length}`, kind: 'standard' as const, hash, xml: '', qr: '', issuedAt: '2026-11-25T10:00:00Z' };
    };
    const issued = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.issue(`doc-${i}`, stamp(`d${i}`))));
    const chain = issued.map((r) => r.invoice).sort((x, y) => x.icv - y.icv);
    expect(chain.map((i) => i.icv)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    let pih = FIRST_PIH;
    for (const invoice of chain) {
      expect(made.find((m) => m.hash === invoice.hash)?.pih).toBe(pih);
      pih = invoice.hash;
    }
    // The replicas did contend: some stamps were thrown away for a lost compare-and-set.
    expect(made.length).toBeGreaterThan(20);
    expect(await replicas[1]!.head()).toEqual({ icv: 20, pih, pending: 20 });
    // The same document asked of both replicas at once: one invoice.
    const twice = await Promise.all(replicas.map((r) => r.issue('doc-same', stamp('same'))));
    expect(twice[0]!.invoice).toEqual(twice[1]!.invoice);
    expect(twice.map((t) => t.resent).sort()).toEqual([false, true]);
  });

  it('imports the state file of the earlier version once, then continues from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zatca-legacy-'));
    const old = { documentId: 'doc-old', uuid: 'u-old', icv: 7, kind: 'standard', hash: 'h-old', xml: '', qr: '', issuedAt: '2026-11-25T10:00:00Z' };
    writeFileSync(join(dir, 'zatca-chain-egs-l.json'), JSON.stringify({ egsUnit: 'egs-l', icv: 7, pih: 'h-old', pending: [old] }));
    const state = memoryState();
    const chain = new InvoiceChain(state, 'egs-l', { legacyStateDir: dir });
    const next = await chain.issue('doc-new', make('n'));
    expect(next.invoice).toMatchObject({ icv: 8, hash: 'h-n-8-h-ol' });
    expect(await chain.pending('u-old')).toEqual(old);
    expect(await chain.issue('doc-old', make('again'))).toEqual({ invoice: old, resent: true });
    // Once: the state has a head now, the file is not read again.
    expect(await new InvoiceChain(state, 'egs-l').importStateFile(dir)).toBe(false);
  });
});

describe('sa-zatca before the network', () => {
  it('a document without structured content is rejected; an invoice it cannot reach ZATCA with is transient and stays in the chain', async () => {
    const h = memoryHost([], { config, secrets });
    expect(await saZatca.send(sampleMessage({ country: 'SA' }, 'invoice'), h)).toMatchObject({ outcome: 'rejected', errorCode: 'ZATCA_UNSUPPORTED_DOCUMENT' });
    const msg = { ...sampleMessage({ country: 'SA' }, 'invoice'), payload: { content: '', contentType: 'application/json', normalized: saudiInvoice() as unknown as Record<string, unknown> } };
    expect(await saZatca.send(msg, h)).toMatchObject({ outcome: 'transient', errorCode: 'HTTP_NETWORK_ERROR' });
    const bad = { ...msg, documentId: 'doc-bad-vat', payload: { ...msg.payload, normalized: saudiInvoice({ seller: { ...saudiInvoice().seller, vatId: 'SA1234' } }) as unknown as Record<string, unknown> } };
    expect(await saZatca.send(bad, h)).toMatchObject({ outcome: 'rejected', errorCode: 'ZATCA_INVALID_INVOICE', errorMessage: expect.stringContaining('15 digits') });
    expect(h.logged.join('\n')).not.toContain('contract-csid-secret');
    expect(await saZatca.health!(h)).toMatchObject({ status: 'ok', message: expect.stringContaining('next invoice 2, 1 unanswered') });
  });

  it('a simplified invoice ZATCA cannot take is accepted, and after 24 hours without ZATCA its report is given up (REPORTING_DEADLINE_MISSED)', async () => {
    const state = memoryState();
    const issuedAt = new Date('2026-11-25T10:00:00Z');
    const at = (d: Date) => memoryHost([], { config, secrets, now: () => d, state });
    const msg = { ...sampleMessage({ country: 'SA' }, 'invoice'), payload: { content: '', contentType: 'application/json', normalized: saudiB2cInvoice() as unknown as Record<string, unknown> } };
    const r = await saZatca.send(msg, at(issuedAt));
    expect(r).toMatchObject({ outcome: 'accepted', checkAfterMs: 300000 });
    const { messageId } = r as { messageId: string };
    expect(await saZatca.status({ messageId, livemode: false }, at(new Date(issuedAt.getTime() + 23 * 3_600_000)))).toEqual({ outcome: 'pending', checkAfterMs: 300000 });
    expect(await saZatca.status({ messageId, livemode: false }, at(new Date(issuedAt.getTime() + 24 * 3_600_000)))).toMatchObject({ outcome: 'rejected', errorCode: 'ZATCA:REPORTING_DEADLINE_MISSED' });
    expect(await new InvoiceChain(state, 'contract').head()).toMatchObject({ icv: 1, pending: 0 });
  });
});
