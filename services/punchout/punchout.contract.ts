/**
 * punchout: cXML 1.2 PunchOut from the buyer's side, two operations. A buyer's company opens a
 * shopping session at a supplier's catalog (we post the PunchOutSetupRequest and answer with the
 * StartPage its user's browser opens); the catalog has the browser post the cart back to the
 * session's cart-return URL (PunchOutOrderMessage), and the cart becomes a purchase order sent to
 * the supplier (orders service, Peppol BIS Order 3.0).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { purchaseOrderViewSchema, type PurchaseOrderView } from '../orders/orders.contract.ts';

const SERVICE = 'punchout';

export interface OpenSessionParams {
  /** The supplier's PunchOut setup URL (its catalog's cXML endpoint). */
  catalogUrl: string;
  /** Who receives the purchase order the cart becomes. */
  supplier: { name: string; peppolId: string };
  /** The cXML credentials the supplier issued to the buyer (From / To / Sender). */
  credentials?: { fromDomain?: string; fromIdentity?: string; toDomain?: string; toIdentity?: string; sharedSecret?: string };
  /** The purchase order's number; default `PO-` and the session's id. */
  orderNumber?: string;
  /** Who shops (sent as Extrinsic UserEmail / UserFullName). */
  user?: { email?: string; name?: string };
  operation?: 'create' | 'edit' | 'inspect';
}

export interface SessionView {
  id: string;
  status: 'open' | 'ordered';
  /** Open it in the user's browser: the catalog's shopping page for this session. */
  startPageUrl: string;
  /** Where the catalog posts the cart back (the BrowserFormPost URL we sent it). */
  cartReturnUrl: string;
  supplier: { name: string; peppolId: string };
  orderNumber: string;
  expiresAt: string;
  createdAt: string;
}

export const sessionSchema = {
  type: 'object',
  required: ['id', 'status', 'startPageUrl', 'cartReturnUrl', 'supplier', 'orderNumber', 'expiresAt', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['pos_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    status: { type: 'string', enum: ['open', 'ordered'] },
    startPageUrl: { type: 'string', format: 'uri', description: "The catalog's page for this session: open it in the user's browser" },
    cartReturnUrl: { type: 'string', format: 'uri', description: 'The BrowserFormPost URL the catalog posts the cart to' },
    supplier: { type: 'object', required: ['name', 'peppolId'], properties: { name: { type: 'string' }, peppolId: { type: 'string' } } },
    orderNumber: { type: 'string' },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const text = (max: number) => ({ type: 'string', min: 1, max, optional: true });

export const openSession = defineAction<OpenSessionParams, SessionView>(SERVICE, 'openSession', {
  params: {
    ...STRICT_REMOVE,
    catalogUrl: { type: 'string', min: 1, max: 2048 },
    supplier: { type: 'object', strict: 'remove', props: { name: { type: 'string', min: 1, max: 300 }, peppolId: { type: 'string', pattern: /^\d{4}:\S{1,128}$/, messages: { stringPattern: "The 'supplier.peppolId' field must be a Peppol id <scheme>:<identifier>." } } } },
    credentials: { type: 'object', optional: true, strict: 'remove', props: { fromDomain: text(100), fromIdentity: text(255), toDomain: text(100), toIdentity: text(255), sharedSecret: text(255) } },
    orderNumber: text(200),
    user: { type: 'object', optional: true, strict: 'remove', props: { email: { type: 'email', optional: true, max: 254 }, name: text(200) } },
    operation: { type: 'enum', optional: true, values: ['create', 'edit', 'inspect'] },
  },
  http: {
    method: 'POST', path: '/v1/punchout/sessions', access: 'send', company: 'required', status: 201, tag: 'PunchOut',
    summary: "Open a PunchOut session at a supplier's catalog: we post a cXML 1.2 PunchOutSetupRequest (your credentials, a secret buyer cookie, our cart-return URL) to `catalogUrl` and answer with the catalog's StartPage for the user's browser. The session takes one cart within 1 hour (EINV_PUNCHOUT_SESSION_SECONDS); the cart becomes a purchase order to `supplier`. Live sessions need an HTTPS catalog on a public address",
    response: sessionSchema,
    errors: { 502: 'upstream_error: the catalog did not answer, answered no cXML, or refused the setup (its cXML status in `details`)' },
  },
});

export interface ReturnCartParams {
  id: string;
  /** The post as the gateway hands a non-JSON body over: the bytes and their type. */
  file?: { content: string; contentType?: string };
}

export interface CartReturnView {
  sessionId: string;
  status: 'ordered';
  purchaseOrder: PurchaseOrderView;
}

export const returnCart = defineAction<ReturnCartParams, CartReturnView>(SERVICE, 'returnCart', {
  params: {
    ...STRICT_REMOVE,
    id: { type: 'string', min: 1, max: 64 },
    file: { type: 'object', optional: true, props: { content: { type: 'string' }, contentType: { type: 'string', optional: true, max: 255 } } },
  },
  http: {
    method: 'POST', path: '/v1/punchout/sessions/:id/cart', access: 'public', status: 201, tag: 'PunchOut', rawBody: true,
    summary: "The cart-return callback (BrowserFormPost) the catalog has the user's browser post: a cXML PunchOutOrderMessage as the form field `cxml-urlencoded` or `cxml-base64` (application/x-www-form-urlencoded), or as the XML body (text/xml). No bearer token: the session's secret buyer cookie in the message authenticates it. The cart becomes a purchase order (Peppol BIS Order 3.0) sent to the session's supplier; a session takes one cart",
    response: {
      type: 'object', required: ['sessionId', 'status', 'purchaseOrder'],
      properties: { sessionId: { type: 'string' }, status: { type: 'string', const: 'ordered' }, purchaseOrder: purchaseOrderViewSchema },
    },
    errors: {
      401: 'INVALID_TOKEN: the buyer cookie is not this session\'s',
      404: 'RESOURCE_NOT_FOUND: no such session, or it expired',
      409: 'INVALID_TRANSITION: the session already took its cart (open → ordered happens once)',
      413: 'PAYLOAD_TOO_LARGE: a cXML message over 1 MiB, over its shape caps, or a cart over 1,000 items',
      415: 'UNSUPPORTED_MEDIA_TYPE: neither a form nor XML',
      422: 'UBL_VALIDATION_FAILED, RECIPIENT_NOT_FOUND, RECIPIENT_CANNOT_RECEIVE: as for POST /v1/purchase-orders',
    },
  },
});
