/**
 * cXML PunchOut from the buyer's side: the setup request we post, the catalog's setup response,
 * and the returned cart in each form catalogs post it, read safely (no DTD, no entities, bounded)
 * and turned into a purchase order that renders as a valid UBL Order.
 */
import {
  buildPunchOutSetupRequest, readPunchOutSetupResponse, readPunchOutOrderMessage, cartPostXml, cartToPurchaseOrderDocument, readCxml,
  purchaseOrderFromJson, purchaseOrderToUbl, MappingError, CXML_DTD,
} from '../../../../mappings/index.ts';
import { xsdErrors } from '../support/xsd.ts';

const orderMessage = (cookie: string, items: string, total = '<Total><Money currency="EUR">67.00</Money></Total>') => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE cXML SYSTEM "${CXML_DTD}">
<cXML payloadID="cart-1@catalog.example" timestamp="2026-03-01T10:00:00+01:00" xml:lang="en-US">
  <Header><From><Credential domain="DUNS"><Identity>123</Identity></Credential></From><To><Credential domain="NetworkID"><Identity>buyer</Identity></Credential></To><Sender><Credential domain="DUNS"><Identity>123</Identity></Credential><UserAgent>Catalog 1.0</UserAgent></Sender></Header>
  <Message><PunchOutOrderMessage>
    <BuyerCookie>${cookie}</BuyerCookie>
    <PunchOutOrderMessageHeader operationAllowed="edit">${total}</PunchOutOrderMessageHeader>
    ${items}
  </PunchOutOrderMessage></Message>
</cXML>`;

const ITEMS = `<ItemIn quantity="3"><ItemID><SupplierPartID>PEN-01</SupplierPartID><SupplierPartAuxiliaryID>blue</SupplierPartAuxiliaryID></ItemID>
  <ItemDetail><UnitPrice><Money currency="EUR">4.00</Money></UnitPrice><Description xml:lang="en"><ShortName>Ballpoint pen</ShortName>Blue ballpoint pen, box of 10</Description><UnitOfMeasure>BX</UnitOfMeasure><Classification domain="UNSPSC">44121704</Classification></ItemDetail></ItemIn>
<ItemIn quantity="1"><ItemID><SupplierPartID>DESK-9</SupplierPartID></ItemID>
  <ItemDetail><UnitPrice><Money currency="EUR">55</Money></UnitPrice><Description xml:lang="en">Desk lamp &amp; bulb</Description><UnitOfMeasure>EA</UnitOfMeasure></ItemDetail></ItemIn>`;

describe('setup', () => {
  it('builds a PunchOutSetupRequest with the buyer cookie and the cart-return URL, that reads back as cXML', () => {
    const xml = buildPunchOutSetupRequest({
      payloadId: 'p1@einv', timestamp: '2026-03-01T10:00:00Z', from: { domain: 'NetworkID', identity: 'buyer & co' }, to: { domain: 'DUNS', identity: '123' },
      sender: { domain: 'NetworkID', identity: 'buyer & co', sharedSecret: 's3cret' }, userAgent: 'einvoicing exchange', deploymentMode: 'test', operation: 'create',
      buyerCookie: 'cookie-1', browserFormPostUrl: 'https://api.example/v1/punchout/sessions/pos_1/cart', user: { email: 'eva@buyer.example' },
    });
    expect(xml).toContain(`<!DOCTYPE cXML SYSTEM "${CXML_DTD}">`);
    expect(xml).toContain('<Request deploymentMode="test"><PunchOutSetupRequest operation="create"><BuyerCookie>cookie-1</BuyerCookie><Extrinsic name="UserEmail">eva@buyer.example</Extrinsic><BrowserFormPost><URL>https://api.example/v1/punchout/sessions/pos_1/cart</URL></BrowserFormPost>');
    expect(xml).toContain('<Identity>buyer &amp; co</Identity><SharedSecret>s3cret</SharedSecret>');
    expect(readCxml(xml).name).toBe('cXML');
  });

  it('reads the StartPage of a success, the status of a refusal', () => {
    expect(readPunchOutSetupResponse(`<!DOCTYPE cXML SYSTEM "${CXML_DTD}"><cXML payloadID="x" timestamp="t"><Response><Status code="200" text="success"/><PunchOutSetupResponse><StartPage><URL>https://catalog.example/start?s=1</URL></StartPage></PunchOutSetupResponse></Response></cXML>`))
      .toEqual({ statusCode: '200', statusText: 'success', startPageUrl: 'https://catalog.example/start?s=1' });
    expect(readPunchOutSetupResponse('<cXML><Response><Status code="401" text="Unauthorized">Bad shared secret</Status></Response></cXML>')).toEqual({ statusCode: '401', statusText: 'Unauthorized' });
    expect(() => readPunchOutSetupResponse('<html>oops</html>')).toThrow(/Expected a cXML message/);
  });
});

describe('cart return', () => {
  const xml = orderMessage('cookie-1', ITEMS);

  it.each([
    ['cxml-urlencoded', Buffer.from(`cxml-urlencoded=${encodeURIComponent(xml)}`), 'application/x-www-form-urlencoded'],
    ['cxml-base64', Buffer.from(new URLSearchParams({ 'cxml-base64': Buffer.from(xml).toString('base64') }).toString()), 'application/x-www-form-urlencoded; charset=UTF-8'],
    ['raw XML', Buffer.from(xml), 'text/xml; charset=utf-8'],
  ])('reads the cart posted as %s', (_form, body, type) => {
    const cart = readPunchOutOrderMessage(cartPostXml(body, type));
    expect(cart).toEqual({
      payloadId: 'cart-1@catalog.example', buyerCookie: 'cookie-1', operationAllowed: 'edit', total: { amount: '67.00', currency: 'EUR' },
      items: [
        { quantity: '3', supplierPartId: 'PEN-01', supplierPartAuxiliaryId: 'blue', unitPrice: '4.00', currency: 'EUR', name: 'Ballpoint pen', description: 'Blue ballpoint pen, box of 10', unit: 'BX' },
        { quantity: '1', supplierPartId: 'DESK-9', unitPrice: '55', currency: 'EUR', name: 'Desk lamp & bulb', unit: 'EA' },
      ],
    });
  });

  it('turns the cart into a purchase order that renders as a valid UBL Order', () => {
    const document = cartToPurchaseOrderDocument(readPunchOutOrderMessage(xml), { number: 'PO-PUNCH-1', seller: { name: 'Catalog Ltd', peppolId: '0088:5790000000011' } });
    const po = purchaseOrderFromJson({ ...document, buyer: { name: 'Buyer', peppolId: '0088:5790000000028' } }, { today: '2026-03-01' });
    expect(po).toMatchObject({ number: 'PO-PUNCH-1', currency: 'EUR', note: 'PunchOut cart cart-1@catalog.example', totals: { lineExtension: 67, payable: 67 } });
    expect(po.lines).toEqual([
      { id: '1', name: 'Ballpoint pen', description: 'Blue ballpoint pen, box of 10', quantity: 3, unit: 'BX', unitPrice: 4, netAmount: 12, sellerItemId: 'PEN-01' },
      { id: '2', name: 'Desk lamp & bulb', quantity: 1, unit: 'EA', unitPrice: 55, netAmount: 55, sellerItemId: 'DESK-9' },
    ]);
    expect(xsdErrors(purchaseOrderToUbl(po))).toEqual([]);
  });

  const refusal = (fn: () => unknown): { code: string; fields: string[] } => {
    try { fn(); } catch (err) {
      expect(err).toBeInstanceOf(MappingError);
      return { code: (err as MappingError).code, fields: (err as MappingError).details.map((d) => d.field) };
    }
    throw new Error('expected a refusal');
  };

  it.each([
    ['entities (billion laughs)', '<?xml version="1.0"?><!DOCTYPE cXML [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><cXML>&b;</cXML>', 'INVALID_REQUEST', 'cxml'],
    ['an external entity', '<?xml version="1.0"?><!DOCTYPE cXML [<!ENTITY x SYSTEM "file:///etc/passwd">]><cXML>&x;</cXML>', 'INVALID_REQUEST', 'cxml'],
    ['not XML', 'cxml', 'INVALID_REQUEST', 'cxml'],
    ['another document', '<Invoice/>', 'INVALID_REQUEST', 'cxml'],
    ['a setup request instead of a cart', buildPunchOutSetupRequest({ payloadId: 'p', timestamp: 't', from: { domain: 'a', identity: 'b' }, to: { domain: 'a', identity: 'b' }, sender: { domain: 'a', identity: 'b' }, userAgent: 'u', deploymentMode: 'test', operation: 'create', buyerCookie: 'c', browserFormPostUrl: 'https://x' }), 'INVALID_REQUEST', 'cxml'],
    ['no buyer cookie', orderMessage('', ITEMS), 'INVALID_REQUEST', 'BuyerCookie'],
    ['an empty cart', orderMessage('c', ''), 'INVALID_REQUEST', 'ItemIn'],
    ['a bad quantity and price', orderMessage('c', '<ItemIn quantity="-1"><ItemID><SupplierPartID>A</SupplierPartID></ItemID><ItemDetail><UnitPrice><Money currency="EURO">ten</Money></UnitPrice></ItemDetail></ItemIn>'), 'INVALID_REQUEST', 'ItemIn[0]@quantity'],
    ['too many items', orderMessage('c', '<ItemIn quantity="1"><ItemID><SupplierPartID>A</SupplierPartID></ItemID></ItemIn>'.repeat(1001)), 'PAYLOAD_TOO_LARGE', 'ItemIn'],
    ['too deep', `<cXML>${'<a>'.repeat(40)}${'</a>'.repeat(40)}</cXML>`, 'PAYLOAD_TOO_LARGE', 'cxml'],
    ['too large', `<cXML><x>${'a'.repeat(1024 * 1024)}</x></cXML>`, 'PAYLOAD_TOO_LARGE', 'cxml'],
  ])('refuses %s', (_name, text, code, field) => {
    const r = refusal(() => readPunchOutOrderMessage(text));
    expect(r.code).toBe(code);
    expect(r.fields).toContain(field);
  });

  it('refuses a form without the cXML, bad base64, another media type, and a cart mixing currencies', () => {
    expect(refusal(() => cartPostXml(Buffer.from('foo=bar'), 'application/x-www-form-urlencoded')).fields).toEqual(['cxml-urlencoded']);
    expect(refusal(() => cartPostXml(Buffer.from('cxml-base64=%%%'), 'application/x-www-form-urlencoded')).fields).toEqual(['cxml-base64']);
    expect(refusal(() => cartPostXml(Buffer.from('{}'), 'application/pdf')).fields).toEqual(['body']);
    const mixed = readPunchOutOrderMessage(orderMessage('c', ITEMS.replace('<Money currency="EUR">55', '<Money currency="USD">55')));
    expect(refusal(() => cartToPurchaseOrderDocument(mixed, { number: 'X', seller: { name: 'S', peppolId: '0088:1' } }))).toEqual({ code: 'INVALID_REQUEST', fields: ['ItemIn'] });
  });
});
