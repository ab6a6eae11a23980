/**
 * cXML 1.2 PunchOut, from the buyer's side: the PunchOutSetupRequest we post to a supplier's
 * catalog, its PunchOutSetupResponse (the StartPage the user's browser opens), and the
 * PunchOutOrderMessage the catalog has the browser post back with the cart, as the catalog posts
 * it (form field `cxml-urlencoded` or `cxml-base64`, or the XML itself), turned into the lines of
 * a purchase order.
 *
 * Reading is bounded before any parser runs (bytes, elements, depth, text runs); the XML is parsed
 * by libxml2 hardened (no DTD loaded, no entity expanded, no network). cXML carries a DOCTYPE
 * naming the cXML DTD: it is read, never fetched; an internal subset declaring entities is refused.
 */
import { MappingError } from '../errors.ts';
import { assertXmlWithinLimits, type XmlLimits } from '../xml/limits.ts';
import { readTree, kid, kids, txt, attr, type XEl } from '../xml/tree.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CURRENCY_CODES } from '../canonical/codes.ts';
import { toDecimalText } from '../canonical/decimal.ts';

export const CXML_DTD = 'http://xml.cxml.org/schemas/cXML/1.2.014/cXML.dtd';
/** Largest cXML message read, in bytes (a cart of a thousand items is well under). */
export const MAX_CXML_BYTES = 1024 * 1024;
/** Items one returned cart may carry. */
export const MAX_CART_ITEMS = 1_000;
/** Shape caps of a cXML message: far below the general XML caps, far above a real cart. */
export const CXML_LIMITS: XmlLimits = Object.freeze({ maxElements: 50_000, maxAttributesPerElement: 32, maxDepth: 32, maxTextLength: 64 * 1024 });

export interface CxmlCredential { domain: string; identity: string }

export interface PunchOutSetupRequestInput {
  payloadId: string;
  /** ISO 8601 */
  timestamp: string;
  from: CxmlCredential;
  to: CxmlCredential;
  sender: CxmlCredential & { sharedSecret?: string };
  userAgent: string;
  /** `test` for sandbox sessions, `production` for live ones. */
  deploymentMode: 'test' | 'production';
  operation: 'create' | 'edit' | 'inspect';
  buyerCookie: string;
  /** Where the catalog has the browser post the cart (BrowserFormPost). */
  browserFormPostUrl: string;
  /** Who shops (Extrinsic UserEmail / UserFullName). */
  user?: { email?: string; name?: string };
}

function credential(w: XmlWriter, c: CxmlCredential & { sharedSecret?: string }): void {
  w.el('Credential', () => { w.leaf('Identity', c.identity).leaf('SharedSecret', c.sharedSecret); }, { domain: c.domain });
}

export function buildPunchOutSetupRequest(i: PunchOutSetupRequestInput): string {
  const w = new XmlWriter();
  w.raw(`<!DOCTYPE cXML SYSTEM "${CXML_DTD}">\n`);
  w.open('cXML', { payloadID: i.payloadId, timestamp: i.timestamp, 'xml:lang': 'en-US' });
  w.el('Header', () => {
    w.el('From', () => credential(w, i.from));
    w.el('To', () => credential(w, i.to));
    w.el('Sender', () => { credential(w, i.sender); w.leaf('UserAgent', i.userAgent); });
  });
  w.el('Request', () => {
    w.el('PunchOutSetupRequest', () => {
      w.leaf('BuyerCookie', i.buyerCookie);
      if (i.user?.email) w.leaf('Extrinsic', i.user.email, { name: 'UserEmail' });
      if (i.user?.name) w.leaf('Extrinsic', i.user.name, { name: 'UserFullName' });
      w.el('BrowserFormPost', () => w.leaf('URL', i.browserFormPostUrl));
    }, { operation: i.operation });
  }, { deploymentMode: i.deploymentMode });
  w.close('cXML');
  return w.toString();
}

const refuse = (message: string, rule: string, field = 'cxml'): never => {
  throw new MappingError('INVALID_REQUEST', message, [{ field, rule, message }]);
};

/** The cXML root, read within the caps; INVALID_REQUEST (or PAYLOAD_TOO_LARGE) when it is not one. */
export function readCxml(xml: string | Buffer, field = 'cxml'): XEl {
  const size = typeof xml === 'string' ? Buffer.byteLength(xml) : xml.length;
  if (size > MAX_CXML_BYTES) throw new MappingError('PAYLOAD_TOO_LARGE', `The cXML message has ${size} bytes; at most ${MAX_CXML_BYTES} are read`, [{ field, rule: 'max-bytes', message: `over ${MAX_CXML_BYTES} bytes` }]);
  const head = (typeof xml === 'string' ? xml.slice(0, 8192) : xml.subarray(0, 8192).toString('latin1'));
  // The DOCTYPE names the public cXML DTD: fine, it is never loaded. Declarations of our own are not.
  if (/<!ENTITY/i.test(typeof xml === 'string' ? xml : xml.toString('latin1')) || /<!DOCTYPE[^>]*\[/i.test(head)) refuse('The cXML message declares entities or an internal DTD subset, which are not accepted', 'no-dtd', field);
  assertXmlWithinLimits(xml, CXML_LIMITS, field);
  let root: XEl;
  try {
    root = readTree(xml, 'The cXML message');
  } catch (err) {
    if (err instanceof MappingError) throw new MappingError(err.code, err.message, err.details.map((d) => ({ ...d, field })));
    throw err;
  }
  if (root.name !== 'cXML') refuse(`Expected a cXML message, got <${root.name}>`, 'root', field);
  return root;
}

export interface PunchOutSetupResponse {
  statusCode: string;
  statusText: string;
  startPageUrl?: string;
}

/** The catalog's answer to a setup request: its status, and the StartPage on success (2xx). */
export function readPunchOutSetupResponse(xml: string | Buffer): PunchOutSetupResponse {
  const root = readCxml(xml, 'catalog response');
  const response = kid(root, 'Response');
  const status = kid(response, 'Status');
  if (!status) return refuse('The catalog answered cXML without a Response/Status', 'status', 'catalog response');
  const statusCode = attr(status, 'code') ?? '';
  const startPageUrl = txt(response, 'PunchOutSetupResponse', 'StartPage', 'URL');
  return { statusCode, statusText: attr(status, 'text') ?? status.text.trim(), ...(startPageUrl ? { startPageUrl } : {}) };
}

export interface CartItem {
  quantity: string;
  supplierPartId?: string;
  supplierPartAuxiliaryId?: string;
  unitPrice?: string;
  currency?: string;
  /** ShortName, or the description text. */
  name?: string;
  description?: string;
  unit?: string;
  manufacturerPartId?: string;
}

export interface PunchOutCart {
  payloadId?: string;
  buyerCookie: string;
  operationAllowed?: string;
  total?: { amount: string; currency?: string };
  items: CartItem[];
}

function descriptionOf(d: XEl | undefined): { name?: string; description?: string } {
  if (!d) return {};
  const short = txt(d, 'ShortName');
  const text = d.text.replace(/\s+/g, ' ').trim();
  if (short) return { name: short, ...(text && text !== short ? { description: text } : {}) };
  return text ? { name: text } : {};
}

/** A PunchOutOrderMessage → the returned cart; every problem of it at once. */
export function readPunchOutOrderMessage(xml: string | Buffer): PunchOutCart {
  const root = readCxml(xml);
  const message = kid(kid(root, 'Message'), 'PunchOutOrderMessage');
  if (!message) return refuse('The cXML message is not a PunchOutOrderMessage (cXML/Message/PunchOutOrderMessage)', 'PunchOutOrderMessage');
  const buyerCookie = kid(message, 'BuyerCookie')?.text.trim() ?? '';
  if (!buyerCookie) refuse('The PunchOutOrderMessage has no BuyerCookie', 'BuyerCookie', 'BuyerCookie');
  const header = kid(message, 'PunchOutOrderMessageHeader');
  const totalMoney = kid(kid(header, 'Total'), 'Money');
  const itemsIn = kids(message, 'ItemIn');
  if (itemsIn.length === 0) refuse('The returned cart is empty (no ItemIn)', 'ItemIn', 'ItemIn');
  if (itemsIn.length > MAX_CART_ITEMS) throw new MappingError('PAYLOAD_TOO_LARGE', `The cart has ${itemsIn.length} items; at most ${MAX_CART_ITEMS} are taken`, [{ field: 'ItemIn', rule: 'maxItems', message: `over ${MAX_CART_ITEMS} items` }]);
  const details: Array<{ field: string; rule: string; message: string }> = [];
  const items = itemsIn.map((item, index): CartItem => {
    const at = `ItemIn[${index}]`;
    const quantity = toDecimalText(attr(item, 'quantity') ?? '');
    if (quantity === undefined || !(Number(quantity) > 0)) details.push({ field: `${at}@quantity`, rule: 'positive', message: `${at} has no positive quantity` });
    const detail = kid(item, 'ItemDetail');
    const money = kid(kid(detail, 'UnitPrice'), 'Money');
    const price = money ? toDecimalText(money.text.trim()) : undefined;
    if (money && price === undefined) details.push({ field: `${at}/ItemDetail/UnitPrice/Money`, rule: 'number', message: `${at} has a unit price that is not a number` });
    const currency = attr(money, 'currency');
    if (currency !== undefined && !CURRENCY_CODES.has(currency)) details.push({ field: `${at}/ItemDetail/UnitPrice/Money@currency`, rule: 'iso4217', message: `${at} has currency '${currency}', not ISO 4217` });
    const { name, description } = descriptionOf(kid(detail, 'Description'));
    const out: CartItem = { quantity: quantity ?? '0' };
    const set = <K extends keyof CartItem>(k: K, v: CartItem[K] | undefined) => { if (v !== undefined && v !== '') out[k] = v; };
    set('supplierPartId', txt(item, 'ItemID', 'SupplierPartID'));
    set('supplierPartAuxiliaryId', txt(item, 'ItemID', 'SupplierPartAuxiliaryID'));
    set('unitPrice', price);
    set('currency', currency);
    set('name', name);
    set('description', description);
    set('unit', txt(detail, 'UnitOfMeasure'));
    set('manufacturerPartId', txt(detail, 'ManufacturerPartID'));
    if (!out.name && !out.supplierPartId) details.push({ field: `${at}/ItemDetail/Description`, rule: 'required', message: `${at} names no item (no Description, no SupplierPartID)` });
    return out;
  });
  if (details.length) throw new MappingError('INVALID_REQUEST', details.length === 1 ? details[0]!.message : `${details[0]!.message} (and ${details.length - 1} more)`, details);
  const totalAmount = totalMoney ? toDecimalText(totalMoney.text.trim()) : undefined;
  const totalCurrency = attr(totalMoney, 'currency');
  const payloadId = attr(root, 'payloadID');
  const operationAllowed = attr(header, 'operationAllowed');
  return {
    ...(payloadId ? { payloadId } : {}), buyerCookie, ...(operationAllowed ? { operationAllowed } : {}),
    ...(totalAmount !== undefined ? { total: { amount: totalAmount, ...(totalCurrency ? { currency: totalCurrency } : {}) } } : {}),
    items,
  };
}

/**
 * The cXML text of a cart-return post, as catalogs send it: an HTML form post with the field
 * `cxml-urlencoded` (the XML, URL-encoded) or `cxml-base64` (the XML in base64), or the XML as
 * the body itself (text/xml, application/xml).
 */
export function cartPostXml(body: Buffer, contentType: string | undefined): Buffer {
  if (body.length > MAX_CXML_BYTES * 2) throw new MappingError('PAYLOAD_TOO_LARGE', `The cart post has ${body.length} bytes; at most ${MAX_CXML_BYTES * 2} are read`, [{ field: 'body', rule: 'max-bytes', message: 'too large' }]);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(body.toString('utf8'));
    const encoded = form.get('cxml-urlencoded') ?? form.get('cXML-urlencoded');
    if (encoded) return Buffer.from(encoded, 'utf8');
    const base64 = form.get('cxml-base64') ?? form.get('cXML-base64');
    if (base64) {
      if (!/^[A-Za-z0-9+/=\s]+$/.test(base64)) refuse('The form field cxml-base64 is not base64', 'base64', 'cxml-base64');
      return Buffer.from(base64, 'base64');
    }
    return refuse('The form carries neither cxml-urlencoded nor cxml-base64', 'required', 'cxml-urlencoded');
  }
  if (type === 'text/xml' || type === 'application/xml' || type === '' || type.endsWith('+xml')) return body;
  return refuse(`A cart is posted as a form (cxml-urlencoded or cxml-base64) or as XML, not ${type}`, 'contentType', 'body');
}

/**
 * The returned cart as the `document` of a purchase order (mappings/ubl-order reads it with its
 * own rules): one line per item, the supplier's part number, price and unit; the cart's currency
 * (one for the whole cart). The buyer is left to the order's defaults (the company that opened the
 * session).
 */
export function cartToPurchaseOrderDocument(cart: PunchOutCart, order: { number: string; seller: { name: string; peppolId: string }; note?: string }): Record<string, unknown> {
  const currencies = new Set([...cart.items.map((i) => i.currency), cart.total?.currency].filter((c): c is string => c !== undefined));
  if (currencies.size > 1) refuse(`The cart mixes currencies (${[...currencies].join(', ')}); a purchase order has one`, 'currency', 'ItemIn');
  const [currency] = currencies;
  return {
    number: order.number,
    ...(currency ? { currency } : {}),
    note: order.note ?? `PunchOut cart${cart.payloadId ? ` ${cart.payloadId}` : ''}`,
    seller: order.seller,
    lines: cart.items.map((i, index) => ({
      id: String(index + 1),
      name: i.name ?? i.supplierPartId,
      ...(i.description ? { description: i.description } : {}),
      quantity: i.quantity,
      ...(i.unit ? { unit: i.unit } : {}),
      ...(i.unitPrice !== undefined ? { unitPrice: i.unitPrice } : {}),
      ...(i.supplierPartId ? { sellerItemId: i.supplierPartId } : {}),
    })),
  };
}
