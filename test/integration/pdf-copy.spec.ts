/**
 * A structured invoice carrying a PDF copy of itself (an AdditionalDocumentReference with an
 * application/pdf EmbeddedDocumentBinaryObject, BT-125, as Peppol BIS Billing 3.0.20 allows) is
 * accepted, and the copy is its PDF representation on both sides: links.pdf in the view and the
 * list, the bytes at /pdf. An attachment labelled PDF that is no PDF is no representation.
 */
import { PDFDocument } from 'pdf-lib';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { eventually } from '../support/webhook-receiver.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.stop(); });

async function copyPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText('Invoice PDF-COPY-1 (visual copy)');
  return Buffer.from(await pdf.save());
}

/** The rendered UBL of a JSON invoice, with one attachment (BT-122 … BT-125) before the seller. */
async function ublWithAttachment(key: string, vatNumber: string, number: string, content: Buffer, mimeCode = 'application/pdf'): Promise<string> {
  const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 1, vatNumber) } });
  const reference = `<cac:AdditionalDocumentReference><cbc:ID>${number}</cbc:ID><cbc:DocumentDescription>Invoice copy</cbc:DocumentDescription><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="${mimeCode}" filename="${number}.pdf">${content.toString('base64')}</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`;
  return rendered.body.renderedXml.replace('<cac:AccountingSupplierParty>', `${reference}<cac:AccountingSupplierParty>`);
}

it('a PDF copy attached to a UBL invoice is its PDF representation, for the sender and the recipient', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const pdf = await copyPdf();
  const xml = await ublWithAttachment(seller.apiKey, seller.company.vatNumber, 'PDF-COPY-1', pdf);
  const sent = await api<{ id: string; links: Record<string, string> }>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: buyer.company.peppolId, xml } });
  expect(sent.status).toBe(201);
  expect(sent.body.links.pdf).toBe(`/v1/documents/${sent.body.id}/pdf`);
  const got = await fetch(`${t.baseUrl}/v1/documents/${sent.body.id}/pdf`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(got.headers.get('content-type')).toBe('application/pdf');
  expect(got.headers.get('content-disposition')).toContain('PDF-COPY-1.pdf');
  expect(Buffer.from(await got.arrayBuffer()).equals(pdf)).toBe(true);

  // The recipient's copy has it too, in the list as in the view.
  const incoming = await eventually(async () => {
    const list = await api<{ data: Array<{ id: string; number: string; links: Record<string, string> }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: buyer.apiKey });
    return list.body.data.find((d) => d.number === 'PDF-COPY-1');
  }, 15_000, 'the recipient\'s copy');
  expect(incoming.links.pdf).toBe(`/v1/documents/${incoming.id}/pdf`);
  const theirs = await fetch(`${t.baseUrl}/v1/documents/${incoming.id}/pdf`, { headers: { authorization: `Bearer ${buyer.apiKey}` } });
  expect(Buffer.from(await theirs.arrayBuffer()).equals(pdf)).toBe(true);
}, 60_000);

it('an attachment labelled application/pdf that is no PDF is not offered as one: the PDF is the invoice drawn', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const fake = Buffer.from('not a pdf at all');
  const xml = await ublWithAttachment(seller.apiKey, seller.company.vatNumber, 'PDF-FAKE-1', fake);
  const sent = await api<{ id: string; links: Record<string, string> }>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: buyer.company.peppolId, xml } });
  expect(sent.status).toBe(201);
  const got = await fetch(`${t.baseUrl}/v1/documents/${sent.body.id}/pdf`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(got.status).toBe(200);
  expect(got.headers.get('content-disposition')).toBe('inline; filename="PDF-FAKE-1.pdf"');
  const body = Buffer.from(await got.arrayBuffer());
  expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(body.includes(fake)).toBe(false);
}, 60_000);
