/**
 * PunchOut round trip, buyer side, against a supplier's catalog stand-in on 127.0.0.1 (a real HTTP
 * server speaking cXML 1.2): the buyer's company opens a session (we post a PunchOutSetupRequest,
 * the catalog answers its StartPage), the user's browser shops there and the catalog's page posts
 * the cart back to the session's BrowserFormPost URL as `cxml-urlencoded` — the cart becomes a
 * purchase order sent to the supplier, who receives it as one. Then every bad post: a wrong buyer
 * cookie, a second cart, an unknown session, hostile XML, a catalog refusing the setup.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { freePort } from '../support/servers.ts';
import { makeLive } from '../support/live-key.ts';
import { readBody } from '../support/peppol-network.ts';
import { readCxml, CXML_DTD } from '../../mappings/index.ts';
import { kid, txt, type XEl } from '../../mappings/xml/tree.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';

const SHARED_SECRET = 'catalog-s3cret';

/** The supplier's catalog: PunchOut setup (checks the shared secret), a shop page per session whose form posts the cart back. */
interface Catalog { url: string; server: Server; setups: Array<{ cookie: string; returnUrl: string; operation: string; deploymentMode: string; userEmail?: string }>; close(): Promise<void> }

const cart = (cookie: string, items = `
  <ItemIn quantity="4"><ItemID><SupplierPartID>CHAIR-7</SupplierPartID></ItemID><ItemDetail><UnitPrice><Money currency="EUR">120.00</Money></UnitPrice><Description xml:lang="en"><ShortName>Office chair</ShortName>Ergonomic office chair, black</Description><UnitOfMeasure>EA</UnitOfMeasure></ItemDetail></ItemIn>
  <ItemIn quantity="2"><ItemID><SupplierPartID>DESK-2</SupplierPartID></ItemID><ItemDetail><UnitPrice><Money currency="EUR">310.50</Money></UnitPrice><Description xml:lang="en">Standing desk</Description><UnitOfMeasure>EA</UnitOfMeasure></ItemDetail></ItemIn>`) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE cXML SYSTEM "${CXML_DTD}">
<cXML payloadID="cart-${randomInt(1e9)}@catalog.test" timestamp="2026-03-01T10:00:00+01:00" xml:lang="en-US">
<Header><From><Credential domain="DUNS"><Identity>555</Identity></Credential></From><To><Credential domain="NetworkID"><Identity>buyer</Identity></Credential></To><Sender><Credential domain="DUNS"><Identity>555</Identity></Credential><UserAgent>Catalog stand-in</UserAgent></Sender></Header>
<Message><PunchOutOrderMessage><BuyerCookie>${cookie}</BuyerCookie><PunchOutOrderMessageHeader operationAllowed="edit"><Total><Money currency="EUR">1101.00</Money></Total></PunchOutOrderMessageHeader>${items}</PunchOutOrderMessage></Message></cXML>`;

const attrOf = (el: XEl | undefined, name: string) => el?.attrs[name];

async function startCatalog(): Promise<Catalog> {
  const setups: Catalog['setups'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? '/';
      if (req.method === 'POST' && path === '/punchout/setup') {
        // The catalog reads the request as a real one would: credentials, cookie, where to post the cart.
        const root = readCxml(body);
        const secret = txt(root, 'Header', 'Sender', 'Credential', 'SharedSecret');
        const reply = (status: string, text: string, startPage?: string) => res.writeHead(200, { 'content-type': 'text/xml' }).end(
          `<?xml version="1.0"?><!DOCTYPE cXML SYSTEM "${CXML_DTD}"><cXML payloadID="r@catalog" timestamp="2026-03-01T10:00:00Z"><Response><Status code="${status}" text="${text}"/>${startPage ? `<PunchOutSetupResponse><StartPage><URL>${startPage}</URL></StartPage></PunchOutSetupResponse>` : ''}</Response></cXML>`);
        if (secret !== SHARED_SECRET) return reply('401', 'Unauthorized');
        const request = kid(kid(root, 'Request'), 'PunchOutSetupRequest');
        const extrinsic = request?.kids.find((k) => k.name === 'Extrinsic' && k.attrs.name === 'UserEmail')?.text;
        setups.push({
          cookie: txt(request, 'BuyerCookie')!, returnUrl: txt(request, 'BrowserFormPost', 'URL')!, operation: attrOf(request, 'operation')!,
          deploymentMode: attrOf(kid(root, 'Request'), 'deploymentMode')!, ...(extrinsic ? { userEmail: extrinsic } : {}),
        });
        return reply('200', 'success', `${catalogUrl}/shop/${setups.length - 1}`);
      }
      const shop = /^\/shop\/(\d+)$/.exec(path);
      if (req.method === 'GET' && shop) {
        // The checkout page: a form the browser posts to the buyer's BrowserFormPost URL.
        const s = setups[Number(shop[1])]!;
        const value = cart(s.cookie).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><form method="post" action="${s.returnUrl}"><input type="hidden" name="cxml-urlencoded" value="${value}"><button>Return cart</button></form></body></html>`);
      }
      if (path === '/broken') return res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
      res.writeHead(404).end();
    })().catch((err: Error) => { if (!res.headersSent) res.writeHead(500).end(err.message); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const catalogUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: catalogUrl, server, setups, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** What a browser does with the checkout page: post its form, urlencoded. */
async function submitCheckoutForm(html: string): Promise<Response> {
  const action = /action="([^"]+)"/.exec(html)![1]!;
  const value = /name="cxml-urlencoded" value="([^"]*)"/.exec(html)![1]!.replace(/&lt;/g, '<').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return fetch(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ 'cxml-urlencoded': value }).toString() });
}

let t: TestApp;
let catalog: Catalog;
let buyer: Awaited<ReturnType<typeof bootstrap>>;
let supplier: Awaited<ReturnType<typeof bootstrap>>;

beforeAll(async () => {
  // The cart-return URL sent to the catalog must reach this app: its public URL is its own port.
  const port = await freePort();
  process.env.PORT = String(port);
  process.env.EINV_PUBLIC_URL = `http://127.0.0.1:${port}`;
  t = await startTestApp();
  catalog = await startCatalog();
  buyer = await bootstrap(t.baseUrl, { label: 'punch-buyer' });
  supplier = await bootstrap(t.baseUrl, { label: 'punch-supplier' });
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await catalog?.close();
  for (const k of ['PORT', 'EINV_PUBLIC_URL', 'EINV_RATE_LIMITS']) delete process.env[k];
});

interface SessionView { id: string; status: string; startPageUrl: string; cartReturnUrl: string; orderNumber: string; expiresAt: string }

const open = (body: Record<string, unknown>) => api<SessionView>(t.baseUrl, 'POST', '/v1/punchout/sessions', { key: buyer.apiKey, body });
const openAtCatalog = (extra: Record<string, unknown> = {}) => open({
  catalogUrl: `${catalog.url}/punchout/setup`, supplier: { name: 'Catalog Furniture', peppolId: supplier.company.peppolId },
  credentials: { fromDomain: 'NetworkID', fromIdentity: 'buyer-7', toDomain: 'DUNS', toIdentity: '555', sharedSecret: SHARED_SECRET }, ...extra,
});

it('setup → StartPage → the browser posts the cart back → a purchase order the supplier receives', async () => {
  const number = `PO-PUNCH-${randomInt(1e9)}`;
  const session = await openAtCatalog({ orderNumber: number, user: { email: 'eva@buyer.test', name: 'Eva' } });
  expect(session.status).toBe(201);
  expect(session.body).toMatchObject({ id: expect.stringMatching(/^pos_/), status: 'open', orderNumber: number, startPageUrl: `${catalog.url}/shop/${catalog.setups.length - 1}` });
  expect(session.body.cartReturnUrl).toBe(`${t.baseUrl}/v1/punchout/sessions/${session.body.id}/cart`);
  // What the catalog was told: a test-mode create, a secret cookie (never shown to the API caller), our cart-return URL.
  const setup = catalog.setups.at(-1)!;
  expect(setup).toMatchObject({ operation: 'create', deploymentMode: 'test', returnUrl: session.body.cartReturnUrl, userEmail: 'eva@buyer.test' });
  expect(setup.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(JSON.stringify(session.body)).not.toContain(setup.cookie);

  // The user's browser opens the StartPage, shops, and the checkout form posts the cart back.
  const page = await (await fetch(session.body.startPageUrl)).text();
  const returned = await submitCheckoutForm(page);
  expect(returned.status).toBe(201);
  const result = await returned.json() as { sessionId: string; status: string; purchaseOrder: { id: string; type: string; number: string; totalAmount: number; order: Record<string, unknown> } };
  expect(result).toMatchObject({
    sessionId: session.body.id, status: 'ordered',
    purchaseOrder: {
      type: 'purchase-order', direction: 'outgoing', number, totalAmount: 1101,
      order: {
        number, currency: 'EUR', buyer: { peppolId: buyer.company.peppolId }, seller: { name: 'Catalog Furniture', peppolId: supplier.company.peppolId },
        lines: [
          { id: '1', name: 'Office chair', description: 'Ergonomic office chair, black', quantity: 4, unit: 'EA', unitPrice: 120, netAmount: 480, sellerItemId: 'CHAIR-7' },
          { id: '2', name: 'Standing desk', quantity: 2, unit: 'EA', unitPrice: 310.5, netAmount: 621, sellerItemId: 'DESK-2' },
        ],
        totals: { lineExtension: 1101, payable: 1101 },
      },
    },
  });
  // The buyer reads it among its purchase orders; the supplier receives it as one.
  const mine = await api(t.baseUrl, 'GET', `/v1/purchase-orders/${result.purchaseOrder.id}`, { key: buyer.apiKey });
  expect(mine.body).toMatchObject({ id: result.purchaseOrder.id, metadata: { punchoutSessionId: session.body.id } });
  const received = await (async () => {
    for (let i = 0; i < 100; i++) {
      const list = await api<{ data: Array<{ id: string; number: string }> }>(t.baseUrl, 'GET', '/v1/purchase-orders?direction=incoming', { key: supplier.apiKey });
      const row = list.body.data.find((d) => d.number === number);
      if (row) return row;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the supplier never received the order');
  })();
  expect((await api(t.baseUrl, 'GET', `/v1/purchase-orders/${received.id}`, { key: supplier.apiKey })).body).toMatchObject({ direction: 'incoming', order: { number, totals: { payable: 1101 } } });

  // A session takes one cart.
  const again = await submitCheckoutForm(page);
  expect(again.status).toBe(409);
  expect((await again.json() as { error: { code: string } }).error.code).toBe('INVALID_TRANSITION');
}, 60_000);

describe('refused cart posts: the envelope, no order', () => {
  let session: SessionView;
  let cookie: string;
  beforeAll(async () => {
    session = (await openAtCatalog()).body;
    cookie = catalog.setups.at(-1)!.cookie;
  });
  const post = (body: string, contentType: string, id = session.id) => api(t.baseUrl, 'POST', `/v1/punchout/sessions/${id}/cart`, { rawBody: body, headers: { 'content-type': contentType } });
  const form = (xml: string) => new URLSearchParams({ 'cxml-urlencoded': xml }).toString();

  it.each([
    ['a buyer cookie that is not the session\'s', () => post(form(cart('forged-cookie')), 'application/x-www-form-urlencoded'), 401, 'INVALID_TOKEN'],
    ['an unknown session', () => post(form(cart(cookie)), 'application/x-www-form-urlencoded', 'pos_01JD7Z3V9Q1M2N3P4R5S6T7V8W'), 404, 'RESOURCE_NOT_FOUND'],
    ['a form without the cXML', () => post('foo=bar', 'application/x-www-form-urlencoded'), 400, 'INVALID_REQUEST'],
    ['an empty body', () => post('', 'text/xml'), 400, 'MISSING_FIELD'],
    ['entities', () => post('<?xml version="1.0"?><!DOCTYPE cXML [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><cXML>&b;</cXML>', 'text/xml'), 400, 'INVALID_REQUEST'],
    ['not XML', () => post('<cXML><oops></cXML>', 'text/xml'), 400, 'INVALID_REQUEST'],
    ['an empty cart', () => post(cart(cookie, ''), 'text/xml'), 400, 'INVALID_REQUEST'],
    ['a cart mixing currencies', () => post(cart(cookie, '<ItemIn quantity="1"><ItemID><SupplierPartID>A</SupplierPartID></ItemID><ItemDetail><UnitPrice><Money currency="USD">1</Money></UnitPrice><Description>a</Description></ItemDetail></ItemIn>'), 'text/xml'), 400, 'INVALID_REQUEST'],
    ['a PDF', () => post('%PDF-1.7', 'application/pdf'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['too deep', () => post(`<cXML>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</cXML>`, 'text/xml'), 413, 'PAYLOAD_TOO_LARGE'],
  ])('%s', async (_name, send, status, code) => {
    expectEnvelope(await send(), status, code);
  });

  it('after those, the session still takes its cart (raw XML this time)', async () => {
    const res = await post(cart(cookie), 'text/xml; charset=utf-8');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sessionId: session.id, status: 'ordered', purchaseOrder: { type: 'purchase-order', totalAmount: 1101 } });
  });
});

describe('refused setups', () => {
  it.each([
    ['a wrong shared secret (the catalog says 401)', { credentials: { sharedSecret: 'nope' } }, 502, 'UPSTREAM_ERROR'],
    ['a catalog that is down', { catalogUrl: `${'http://127.0.0.1:1'}/punchout/setup` }, 502, 'UPSTREAM_ERROR'],
    ['a catalog answering no cXML', { catalogUrl: 'CATALOG/broken' }, 502, 'UPSTREAM_ERROR'],
    ['not a URL', { catalogUrl: 'catalog' }, 400, 'INVALID_REQUEST'],
    ['a supplier without a Peppol id', { supplier: { name: 'X', peppolId: 'nope' } }, 400, 'INVALID_REQUEST'],
  ])('%s', async (_name, override, status, code) => {
    const extra = { ...override } as Record<string, unknown>;
    if (typeof extra.catalogUrl === 'string') extra.catalogUrl = extra.catalogUrl.replace('CATALOG', catalog.url);
    if (extra.credentials) extra.credentials = { fromIdentity: 'b', ...(extra.credentials as object) };
    expectEnvelope(await openAtCatalog(extra), status, code);
  });

  it('a live session needs an HTTPS catalog on a public address (no request to a private one)', async () => {
    const live = await bootstrap(t.baseUrl, { label: 'punch-live' });
    await makeLive(t.databaseUrl, live.apiKey);
    const before = catalog.setups.length;
    const openLive = (catalogUrl: string) => api(t.baseUrl, 'POST', '/v1/punchout/sessions', { key: live.apiKey, body: { catalogUrl, supplier: { name: 'S', peppolId: supplier.company.peppolId } } });
    const plain = await openLive(`${catalog.url}/punchout/setup`);
    expectEnvelope(plain, 400, 'INVALID_REQUEST');
    expect(plain.body.error.message).toContain('HTTPS');
    const loopback = await openLive('https://127.0.0.1:1/punchout/setup');
    expectEnvelope(loopback, 400, 'INVALID_REQUEST');
    expect(loopback.body.error.details[0]).toMatchObject({ field: 'catalogUrl', rule: 'publicAddress' });
    expect(catalog.setups.length).toBe(before);
  });

  it('without a key: 401', async () => {
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/punchout/sessions', { body: { catalogUrl: catalog.url, supplier: { name: 'x', peppolId: '0088:1' } } }), 401, 'MISSING_AUTH');
  });
});
