/**
 * `PurchaseOrder` → UBL 2.1 Order under Peppol BIS Order 3.0 (order only): CustomizationID
 * `urn:fdc:peppol.eu:poacc:trns:order:3`, ProfileID `urn:fdc:peppol.eu:poacc:bis:order_only:3`,
 * elements in the UBL 2.1 Order schema's sequence (the XSD is the proof: test/unit/mappings/ubl-order).
 */
import { XmlWriter } from '../xml/writer.ts';
import { CAC_NS, CBC_NS } from '../ubl-2.1/namespaces.ts';
import { dec, money } from '../canonical/decimal.ts';
import { ORDER_CUSTOMIZATION_ID, ORDER_PROFILE_ID, UBL_ORDER_NS, type OrderAddress, type OrderParty, type PurchaseOrder } from './model.ts';

/** `<icd>:<id>` → the EndpointID's schemeID and value. */
function endpoint(peppolId: string): { scheme: string; value: string } {
  const i = peppolId.indexOf(':');
  return { scheme: peppolId.slice(0, i), value: peppolId.slice(i + 1) };
}

function writeAddress(w: XmlWriter, element: string, a: OrderAddress): void {
  w.el(element, () => {
    w.leaf('cbc:StreetName', a.street).leaf('cbc:AdditionalStreetName', a.additionalStreet).leaf('cbc:CityName', a.city)
      .leaf('cbc:PostalZone', a.postalCode).leaf('cbc:CountrySubentity', a.countrySubentity);
    if (a.country) w.el('cac:Country', () => w.leaf('cbc:IdentificationCode', a.country, { listID: 'ISO3166-1:Alpha2' }));
  });
}

function writeParty(w: XmlWriter, p: OrderParty): void {
  w.el('cac:Party', () => {
    if (p.peppolId) { const e = endpoint(p.peppolId); w.leaf('cbc:EndpointID', e.value, { schemeID: e.scheme }); }
    w.el('cac:PartyName', () => w.leaf('cbc:Name', p.name));
    if (p.address) writeAddress(w, 'cac:PostalAddress', p.address);
    if (p.vatNumber) w.el('cac:PartyTaxScheme', () => { w.leaf('cbc:CompanyID', p.vatNumber); w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT')); });
    w.el('cac:PartyLegalEntity', () => { w.leaf('cbc:RegistrationName', p.name).leaf('cbc:CompanyID', p.companyId); });
    if (p.contact) w.el('cac:Contact', () => { w.leaf('cbc:Name', p.contact!.name).leaf('cbc:Telephone', p.contact!.phone).leaf('cbc:ElectronicMail', p.contact!.email); });
  });
}

export function purchaseOrderToUbl(po: PurchaseOrder): string {
  const w = new XmlWriter();
  const cur = { currencyID: po.currency };
  w.open('Order', { xmlns: UBL_ORDER_NS, 'xmlns:cac': CAC_NS, 'xmlns:cbc': CBC_NS });
  w.leaf('cbc:CustomizationID', ORDER_CUSTOMIZATION_ID).leaf('cbc:ProfileID', ORDER_PROFILE_ID)
    .leaf('cbc:ID', po.number).leaf('cbc:IssueDate', po.issueDate).leaf('cbc:OrderTypeCode', '220')
    .leaf('cbc:Note', po.note).leaf('cbc:DocumentCurrencyCode', po.currency)
    .leaf('cbc:CustomerReference', po.buyerReference).leaf('cbc:AccountingCost', po.accountingCost);
  if (po.validUntil) w.el('cac:ValidityPeriod', () => w.leaf('cbc:EndDate', po.validUntil));
  if (po.quotationReference) w.el('cac:QuotationDocumentReference', () => w.leaf('cbc:ID', po.quotationReference));
  if (po.contractReference) w.el('cac:Contract', () => w.leaf('cbc:ID', po.contractReference));
  w.el('cac:BuyerCustomerParty', () => writeParty(w, po.buyer));
  w.el('cac:SellerSupplierParty', () => writeParty(w, po.seller));
  const d = po.delivery;
  if (d) {
    w.el('cac:Delivery', () => {
      if (d.locationId || d.address) w.el('cac:DeliveryLocation', () => { w.leaf('cbc:ID', d.locationId); if (d.address) writeAddress(w, 'cac:Address', d.address); });
      if (d.requestedFrom || d.requestedBy) w.el('cac:RequestedDeliveryPeriod', () => { w.leaf('cbc:StartDate', d.requestedFrom).leaf('cbc:EndDate', d.requestedBy); });
      if (d.partyName) w.el('cac:DeliveryParty', () => w.el('cac:PartyName', () => w.leaf('cbc:Name', d.partyName)));
    });
  }
  if (po.paymentTerms) w.el('cac:PaymentTerms', () => w.leaf('cbc:Note', po.paymentTerms));
  if (po.totals.tax !== undefined) w.el('cac:TaxTotal', () => w.leaf('cbc:TaxAmount', money(String(po.totals.tax)), cur));
  w.el('cac:AnticipatedMonetaryTotal', () => {
    w.leaf('cbc:LineExtensionAmount', money(String(po.totals.lineExtension)), cur);
    if (po.totals.tax !== undefined) {
      w.leaf('cbc:TaxExclusiveAmount', money(String(po.totals.lineExtension)), cur);
      w.leaf('cbc:TaxInclusiveAmount', money(String(po.totals.taxInclusive ?? po.totals.payable)), cur);
    }
    w.leaf('cbc:PayableAmount', money(String(po.totals.payable)), cur);
  });
  for (const l of po.lines) {
    w.el('cac:OrderLine', () => {
      w.leaf('cbc:Note', l.note);
      w.el('cac:LineItem', () => {
        w.leaf('cbc:ID', l.id).leaf('cbc:Quantity', String(l.quantity), { unitCode: l.unit, unitCodeListID: 'UNECERec20' });
        if (l.netAmount !== undefined) w.leaf('cbc:LineExtensionAmount', money(String(l.netAmount)), cur);
        if (l.unitPrice !== undefined) w.el('cac:Price', () => w.leaf('cbc:PriceAmount', dec(l.unitPrice!).toFixed(), cur));
        w.el('cac:Item', () => {
          w.leaf('cbc:Description', l.description).leaf('cbc:Name', l.name);
          if (l.buyerItemId) w.el('cac:BuyersItemIdentification', () => w.leaf('cbc:ID', l.buyerItemId));
          if (l.sellerItemId) w.el('cac:SellersItemIdentification', () => w.leaf('cbc:ID', l.sellerItemId));
          if (l.standardItemId) w.el('cac:StandardItemIdentification', () => w.leaf('cbc:ID', l.standardItemId, { schemeID: l.standardItemScheme }));
          if (l.vatCategory || l.vatRate !== undefined) {
            w.el('cac:ClassifiedTaxCategory', () => {
              w.leaf('cbc:ID', l.vatCategory ?? 'S').leaf('cbc:Percent', l.vatRate !== undefined ? String(l.vatRate) : undefined);
              w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
            });
          }
        });
      });
    });
  }
  w.close('Order');
  return w.toString();
}
