/**
 * UBL 2.1 Order (Peppol BIS Order 3.0, or any UBL 2.1 Order) → `PurchaseOrder`, so an order
 * received over the network reads like one created through the API. Parsed hardened (no DTD, no
 * entities, shape caps) through the shared tree reader; what the model has no field for stays in
 * the original XML, which remains the record.
 */
import { sniffXmlRoot } from '../detect/sniff.ts';
import { MappingError } from '../errors.ts';
import { readTree, kid, kids, txt, attr, type XEl } from '../xml/tree.ts';
import { UBL_ORDER_NS, type OrderAddress, type OrderContact, type OrderLine, type OrderParty, type PurchaseOrder } from './model.ts';

/** Is this a UBL 2.1 Order? Read from the root element only (no parse). */
export function detectUblOrder(bytes: Uint8Array | string): boolean {
  const root = sniffXmlRoot(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return root?.localName === 'Order' && root.namespace === UBL_ORDER_NS;
}

function num(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

function compact<T extends object>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}

function address(a: XEl | undefined): OrderAddress | undefined {
  if (!a) return undefined;
  return compact<OrderAddress>({
    street: txt(a, 'StreetName'), additionalStreet: txt(a, 'AdditionalStreetName'), city: txt(a, 'CityName'),
    postalCode: txt(a, 'PostalZone'), countrySubentity: txt(a, 'CountrySubentity'), country: txt(a, 'Country', 'IdentificationCode'),
  });
}

function party(p: XEl | undefined): OrderParty {
  const endpoint = kid(p, 'EndpointID');
  const scheme = attr(endpoint, 'schemeID');
  const value = endpoint?.text.trim();
  const vat = kids(p, 'PartyTaxScheme').find((s) => txt(s, 'TaxScheme', 'ID') === 'VAT');
  const contact = kid(p, 'Contact');
  const c = contact ? compact<OrderContact>({ name: txt(contact, 'Name'), phone: txt(contact, 'Telephone'), email: txt(contact, 'ElectronicMail') }) : undefined;
  const addr = address(kid(p, 'PostalAddress'));
  const out: OrderParty = { name: txt(p, 'PartyLegalEntity', 'RegistrationName') ?? txt(p, 'PartyName', 'Name') ?? '' };
  if (scheme && value) out.peppolId = `${scheme}:${value}`;
  const vatNumber = txt(vat, 'CompanyID');
  if (vatNumber) out.vatNumber = vatNumber;
  const companyId = txt(p, 'PartyLegalEntity', 'CompanyID');
  if (companyId) out.companyId = companyId;
  if (addr) out.address = addr;
  if (c) out.contact = c;
  return out;
}

function line(ol: XEl, index: number): OrderLine {
  const li = kid(ol, 'LineItem');
  const item = kid(li, 'Item');
  const quantity = kid(li, 'Quantity');
  const tax = kid(item, 'ClassifiedTaxCategory');
  const standard = kid(item, 'StandardItemIdentification');
  const out: OrderLine = {
    id: txt(li, 'ID') ?? String(index + 1),
    name: txt(item, 'Name') ?? txt(item, 'Description') ?? '',
    quantity: num(quantity?.text.trim()) ?? 0,
    unit: attr(quantity, 'unitCode') ?? 'C62',
  };
  const optional: Partial<OrderLine> = {
    description: txt(item, 'Name') !== undefined ? txt(item, 'Description') : undefined,
    unitPrice: num(txt(li, 'Price', 'PriceAmount')),
    netAmount: num(txt(li, 'LineExtensionAmount')),
    sellerItemId: txt(item, 'SellersItemIdentification', 'ID'),
    buyerItemId: txt(item, 'BuyersItemIdentification', 'ID'),
    standardItemId: txt(standard, 'ID'),
    standardItemScheme: attr(kid(standard, 'ID'), 'schemeID'),
    vatCategory: txt(tax, 'ID'),
    vatRate: num(txt(tax, 'Percent')),
    note: txt(ol, 'Note'),
  };
  return { ...out, ...compact(optional) };
}

/** A UBL 2.1 Order's text → `PurchaseOrder`; MappingError INVALID_REQUEST when it is not one. */
export function ublToPurchaseOrder(xml: string | Buffer): PurchaseOrder {
  const root = readTree(xml, 'The order');
  if (root.name !== 'Order' || root.ns !== UBL_ORDER_NS) {
    throw new MappingError('INVALID_REQUEST', `Expected a UBL 2.1 Order, got ${root.name}`, [{ field: 'xml', rule: 'root', message: `the root element is ${root.name}, not Order` }]);
  }
  const totals = kid(root, 'AnticipatedMonetaryTotal');
  const lines = kids(root, 'OrderLine').map(line);
  const lineExtension = num(txt(totals, 'LineExtensionAmount')) ?? lines.reduce((s, l) => s + (l.netAmount ?? 0), 0);
  const tax = num(txt(root, 'TaxTotal', 'TaxAmount'));
  const taxInclusive = num(txt(totals, 'TaxInclusiveAmount'));
  const delivery = kid(root, 'Delivery');
  const location = kid(delivery, 'DeliveryLocation');
  const deliveryPart = delivery ? compact({
    address: address(kid(location, 'Address')), locationId: txt(location, 'ID'),
    requestedFrom: txt(delivery, 'RequestedDeliveryPeriod', 'StartDate'), requestedBy: txt(delivery, 'RequestedDeliveryPeriod', 'EndDate'),
    partyName: txt(delivery, 'DeliveryParty', 'PartyName', 'Name'),
  }) : undefined;
  const optional = compact({
    note: txt(root, 'Note'), buyerReference: txt(root, 'CustomerReference'), accountingCost: txt(root, 'AccountingCost'),
    validUntil: txt(root, 'ValidityPeriod', 'EndDate'), quotationReference: txt(root, 'QuotationDocumentReference', 'ID'),
    contractReference: txt(root, 'Contract', 'ID'), paymentTerms: txt(root, 'PaymentTerms', 'Note'), delivery: deliveryPart,
  }) ?? {};
  return {
    number: txt(root, 'ID') ?? '',
    issueDate: txt(root, 'IssueDate') ?? '',
    currency: txt(root, 'DocumentCurrencyCode') ?? attr(kid(totals, 'PayableAmount'), 'currencyID') ?? 'EUR',
    ...optional,
    buyer: party(kid(kid(root, 'BuyerCustomerParty'), 'Party')),
    seller: party(kid(kid(root, 'SellerSupplierParty'), 'Party')),
    lines,
    totals: {
      lineExtension,
      ...(tax !== undefined ? { tax } : {}),
      ...(taxInclusive !== undefined ? { taxInclusive } : {}),
      payable: num(txt(totals, 'PayableAmount')) ?? taxInclusive ?? lineExtension,
    },
  };
}
