/**
 * Saudi Arabia end to end through the API: a Saudi company (VAT 3…3) sends JSON invoices with a test
 * key; routing gives them to the sa-zatca connector (the clearance connector of the sender's country),
 * configured from EINV_CONNECTOR_SA_ZATCA_* with the production CSID an onboarding against the ZATCA
 * simulator gave. A B2B invoice is cleared: the document carries ZATCA's id (the invoice UUID), the
 * QR and the cleared invoice as the legal original, and `compliance.reported` fires; ZATCA's rejection
 * gives `failed` with its code, and the corrected invoice with the same number goes through; a B2C
 * invoice is reported.
 */
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { createHttpClient } from '../../services/connectors/http-client.ts';
import { newEgsKey, onboard } from '../../adapters/sa-zatca/onboarding.ts';
import { decodeZatcaQr } from '../../mappings/zatca/index.ts';
import { startZatcaSimulator, type ZatcaSimulator } from '../support/zatca-simulator.ts';
import { saudiInvoice, SAUDI_SELLER_VAT, SAUDI_BUYER_VAT } from '../support/saudi-invoice.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let zatca: ZatcaSimulator;
let saudi: Issuers;
let bob: Awaited<ReturnType<typeof bootstrap>>;
const ENV = ['EINV_CONNECTORS', 'EINV_CONNECTOR_SA_ZATCA_BASE_URL', 'EINV_CONNECTOR_SA_ZATCA_BINARY_SECURITY_TOKEN', 'EINV_CONNECTOR_SA_ZATCA_API_SECRET', 'EINV_CONNECTOR_SA_ZATCA_PRIVATE_KEY'];

beforeAll(async () => {
  zatca = await startZatcaSimulator();
  const privateKeyPem = newEgsKey();
  const http = createHttpClient();
  const { production } = await onboard(http, {
    baseUrl: zatca.url, otp: zatca.otp, privateKeyPem,
    egs: { commonName: 'EGS-API', serialNumber: '1-Einv|2-1.0|3-0002', organization: 'Maximum Speed Tech Supply LTD', organizationUnit: 'Riyadh', vatNumber: SAUDI_SELLER_VAT.slice(2), invoiceTypes: '1100', location: 'Riyadh', industry: 'Supply', templateName: 'ZATCA-Code-Signing' },
    seller: saudiInvoice().seller,
  });
  await http.close();
  Object.assign(process.env, {
    EINV_CONNECTORS: 'sandbox-network,sa-zatca',
    EINV_CONNECTOR_SA_ZATCA_BASE_URL: zatca.url,
    EINV_CONNECTOR_SA_ZATCA_BINARY_SECURITY_TOKEN: production.binarySecurityToken,
    EINV_CONNECTOR_SA_ZATCA_API_SECRET: production.secret,
    EINV_CONNECTOR_SA_ZATCA_PRIVATE_KEY: privateKeyPem,
  });
  t = await startTestApp();
  saudi = await issuers(t.baseUrl, [SAUDI_SELLER_VAT], 'saudi');
  bob = await bootstrap(t.baseUrl, { label: 'bob' });
});
afterAll(async () => {
  await t?.stop();
  await zatca?.close();
  for (const k of ENV) delete process.env[k];
});

// JSON sends are validated with the Peppol BIS template whatever their route (see the connector's
// README): the parties carry GLN electronic addresses and the invoice a buyer reference to pass it.
const seller = { name: 'شركة توريد التكنولوجيا بأقصى سرعة المحدودة | Maximum Speed Tech Supply LTD', vatNumber: SAUDI_SELLER_VAT, peppolId: '0088:6286000000002', address: { street: 'Prince Sultan 2322', city: 'Riyadh', postalCode: '23333', country: 'SA' } };
const buyer = (postalCode = '12222') => ({ name: 'شركة نماذج فاتورة المحدودة | Fatoora Samples LTD', vatNumber: SAUDI_BUYER_VAT, peppolId: '0088:6286000000019', address: { street: 'Salah Al-Din 1111', city: 'Riyadh', postalCode, country: 'SA' } });
const invoice = (number: string, b: Record<string, unknown>) => ({
  number, issueDate: '2026-11-25', dueDate: '2026-12-25', currency: 'SAR', buyerReference: 'PO-77', seller, buyer: b,
  lines: [{ description: 'Pencils', quantity: 2, unit: 'C62', unitPrice: 500, vatRate: 15 }],
});
const send = (document: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/documents/send', {
  key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT), body: { type: 'invoice', format: 'json', to: bob.company.peppolId, document },
});

async function settle(id: string, ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT) });
    if (res.body.deliveryStatus !== 'pending' || Date.now() > until) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function complianceEvent(documentId: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', '/v1/events?type=compliance.reported&limit=100', { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT) });
    const found = (res.body.data as Array<{ data: Record<string, unknown> }>).find((e) => e.data.documentId === documentId);
    if (found || Date.now() > until) return found?.data;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Saudi invoices through the API, cleared and reported by ZATCA', () => {
  it('a B2B invoice is cleared: ZATCA\'s id, the QR and the cleared original on the document; compliance.reported', async () => {
    const res = await send(invoice('KSA-1001', buyer()));
    expect(res.status).toBe(201);
    const doc = await settle(res.body.id);
    expect(doc).toMatchObject({ deliveryStatus: 'delivered', clearance: { authority: 'ZATCA', status: 'cleared' } });
    const sub = zatca.submissions.find((s) => s.endpoint === 'clearance' && s.xml.includes('<cbc:ID>KSA-1001</cbc:ID>'))!;
    expect(sub).toMatchObject({ status: 200, codes: [] });
    expect(doc.clearance.authorityId).toBe(sub.uuid);
    const qr = decodeZatcaQr(doc.clearance.qr);
    expect(qr.get(2)!.toString()).toBe('300075588700003');
    expect(qr.get(6)!.toString()).toBe(sub.hash);
    const original = await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}/clearance/original`, { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT) });
    expect(original.status).toBe(200);
    expect(original.text).toContain(doc.clearance.qr);
    expect(original.text).toContain('<cbc:InvoiceTypeCode name="0100000">388</cbc:InvoiceTypeCode>');
    expect(await complianceEvent(res.body.id)).toMatchObject({ reportedTo: 'ZATCA', status: 'reported', authorityId: sub.uuid, clearance: 'cleared' });
  });

  it('ZATCA\'s rejection: failed with its code and compliance.reported failed; the corrected invoice with the same number is cleared', async () => {
    const res = await send(invoice('KSA-1002', buyer('1234')));
    expect(res.status).toBe(201);
    const doc = await settle(res.body.id);
    expect(doc).toMatchObject({ deliveryStatus: 'failed', errorCode: 'ZATCA:BR-KSA-67', clearance: { status: 'rejected' } });
    expect(await complianceEvent(res.body.id)).toMatchObject({ reportedTo: 'ZATCA', status: 'failed', errorCode: 'ZATCA:BR-KSA-67' });
    const again = await send(invoice('KSA-1002', buyer('12345')));
    expect(again.status).toBe(201);
    expect(await settle(again.body.id)).toMatchObject({ deliveryStatus: 'delivered', number: 'KSA-1002', clearance: { status: 'cleared' } });
    expect(await complianceEvent(again.body.id)).toMatchObject({ status: 'reported' });
  });

  it('GET /v1/compliance/status says this deployment clears and reports Saudi invoices through sa-zatca', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/compliance/status?country=SA', { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT) });
    expect(res.status).toBe(200);
    expect(res.body.countries[0]).toMatchObject({ country: 'SA', support: { coverage: 'full', models: [{ model: 'clearance', supported: true, connectors: ['sa-zatca'] }, { model: 'reporting', supported: true, connectors: ['sa-zatca'] }] } });
  });

  it('a B2C (simplified) invoice is reported', async () => {
    const res = await send(invoice('KSA-1003', { name: 'عميل نقدي | Walk-in customer', peppolId: '0088:6286000000026', address: { city: 'Riyadh', country: 'SA' } }));
    expect(res.status).toBe(201);
    const doc = await settle(res.body.id);
    expect(doc).toMatchObject({ deliveryStatus: 'delivered', clearance: { authority: 'ZATCA', status: 'reported' } });
    expect(zatca.submissions.find((s) => s.xml.includes('<cbc:ID>KSA-1003</cbc:ID>'))).toMatchObject({ endpoint: 'reporting', status: 200 });
    expect(decodeZatcaQr(doc.clearance.qr).has(9)).toBe(true);
    expect(await complianceEvent(res.body.id)).toMatchObject({ reportedTo: 'ZATCA', status: 'reported', clearance: 'reported' });
  });

  it('the PDF copy a cleared invoice carries comes with ZATCA\'s QR code drawn on its first page', async () => {
    const copy = await PDFDocument.create();
    copy.addPage([595, 842]).drawText('Invoice KSA-1004');
    const copyBytes = Buffer.from(await copy.save());
    const rendered = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT), body: { format: 'json', type: 'invoice', document: invoice('KSA-1004', buyer()) } });
    const reference = `<cac:AdditionalDocumentReference><cbc:ID>KSA-1004</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="KSA-1004.pdf">${copyBytes.toString('base64')}</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`;
    const xml = (rendered.body.renderedXml as string).replace('<cac:AccountingSupplierParty>', `${reference}<cac:AccountingSupplierParty>`);
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: saudi.apiKey, headers: saudi.as(SAUDI_SELLER_VAT), body: { type: 'invoice', format: 'ubl-xml', to: bob.company.peppolId, xml } });
    expect(res.status).toBe(201);
    expect(await settle(res.body.id)).toMatchObject({ clearance: { status: 'cleared' }, links: { pdf: `/v1/documents/${res.body.id}/pdf` } });
    const pdf = await fetch(`${t.baseUrl}/v1/documents/${res.body.id}/pdf`, { headers: { authorization: `Bearer ${saudi.apiKey}`, ...saudi.as(SAUDI_SELLER_VAT) } });
    expect(pdf.headers.get('x-clearance-stamp')).toBeNull();
    const stamped = await PDFDocument.load(Buffer.from(await pdf.arrayBuffer()));
    // The copy had no image; the stamped first page draws one (the QR), and nothing else changed in the page count.
    const images = (doc: PDFDocument) => (doc.getPages()[0]!.node.Resources()?.lookup(PDFName.of('XObject'), PDFDict)?.keys() ?? []).length;
    expect(images(copy)).toBe(0);
    expect(images(stamped)).toBe(1);
    expect(stamped.getPageCount()).toBe(1);
  });
});
