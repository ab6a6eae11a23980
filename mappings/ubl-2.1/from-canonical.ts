/**
 * Canonical → UBL 2.1 Invoice or CreditNote following the Peppol BIS Billing 3.0 binding of
 * EN 16931. Element order is the UBL 2.1 schema's sequence order (the output is XSD-valid).
 * Values are written exactly as the canonical document holds them.
 */
import type {
  Address, AllowanceCharge, CanonicalInvoice, Contact, Line, Party, Period, SchemedId,
} from '../canonical/model.ts';
import { MappingError } from '../errors.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CAC_NS, CBC_NS, UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from './namespaces.ts';

const NON_BILLING_TYPES = new Set(['purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt', 'event']);

function schemeAttr(id: SchemedId | undefined): Record<string, string | undefined> | undefined {
  return id?.scheme !== undefined ? { schemeID: id.scheme } : undefined;
}

class UblRenderer {
  private readonly w = new XmlWriter();
  private readonly c: CanonicalInvoice;
  private readonly isCredit: boolean;

  constructor(c: CanonicalInvoice) {
    this.c = c;
    this.isCredit = c.kind === 'credit-note';
  }

  private amount(name: string, value: string | undefined, currency = this.c.currency): void {
    this.w.leaf(name, value, { currencyID: currency });
  }

  render(): string {
    const { w, c } = this;
    const root = this.isCredit ? 'CreditNote' : 'Invoice';
    w.open(root, {
      xmlns: this.isCredit ? UBL_CREDIT_NOTE_NS : UBL_INVOICE_NS,
      'xmlns:cac': CAC_NS,
      'xmlns:cbc': CBC_NS,
    });
    w.leaf('cbc:CustomizationID', c.customizationId);
    w.leaf('cbc:ProfileID', c.profileId);
    w.leaf('cbc:ID', c.number);
    w.leaf('cbc:IssueDate', c.issueDate);
    if (this.isCredit) {
      w.leaf('cbc:TaxPointDate', c.taxPointDate);
      w.leaf('cbc:CreditNoteTypeCode', c.typeCode);
    } else {
      w.leaf('cbc:DueDate', c.dueDate);
      w.leaf('cbc:InvoiceTypeCode', c.typeCode);
    }
    for (const n of c.notes ?? []) w.leaf('cbc:Note', n.subjectCode ? `#${n.subjectCode}#${n.text}` : n.text);
    if (!this.isCredit) w.leaf('cbc:TaxPointDate', c.taxPointDate);
    w.leaf('cbc:DocumentCurrencyCode', c.currency);
    w.leaf('cbc:TaxCurrencyCode', c.vatAccountingCurrency);
    w.leaf('cbc:AccountingCost', c.buyerAccountingReference);
    w.leaf('cbc:BuyerReference', c.buyerReference);
    if (c.invoicingPeriod) this.period(c.invoicingPeriod);
    if (c.orderReference !== undefined || c.salesOrderReference !== undefined) {
      w.el('cac:OrderReference', () => {
        // UBL requires OrderReference/ID; BT-14 alone is written with the NA placeholder Peppol documents.
        w.leaf('cbc:ID', c.orderReference ?? 'NA');
        w.leaf('cbc:SalesOrderID', c.salesOrderReference);
      });
    }
    for (const p of c.precedingInvoices ?? []) {
      w.el('cac:BillingReference', () => w.el('cac:InvoiceDocumentReference', () => {
        w.leaf('cbc:ID', p.number);
        w.leaf('cbc:IssueDate', p.issueDate);
      }));
    }
    if (c.despatchAdviceReference !== undefined) w.el('cac:DespatchDocumentReference', () => w.leaf('cbc:ID', c.despatchAdviceReference));
    if (c.receivingAdviceReference !== undefined) w.el('cac:ReceiptDocumentReference', () => w.leaf('cbc:ID', c.receivingAdviceReference));
    // CreditNote orders ContractDocumentReference/AdditionalDocumentReference before OriginatorDocumentReference.
    if (!this.isCredit && c.tenderReference !== undefined) w.el('cac:OriginatorDocumentReference', () => w.leaf('cbc:ID', c.tenderReference));
    if (c.contractReference !== undefined) w.el('cac:ContractDocumentReference', () => w.leaf('cbc:ID', c.contractReference));
    if (c.invoicedObjectIdentifier) {
      w.el('cac:AdditionalDocumentReference', () => {
        w.leaf('cbc:ID', c.invoicedObjectIdentifier!.value, schemeAttr(c.invoicedObjectIdentifier));
        w.leaf('cbc:DocumentTypeCode', '130');
      });
    }
    if (this.isCredit && c.projectReference !== undefined) {
      // CreditNote has no ProjectReference element: Peppol binds BT-11 to a document reference typed 50.
      w.el('cac:AdditionalDocumentReference', () => {
        w.leaf('cbc:ID', c.projectReference);
        w.leaf('cbc:DocumentTypeCode', '50');
      });
    }
    for (const a of c.attachments ?? []) {
      w.el('cac:AdditionalDocumentReference', () => {
        w.leaf('cbc:ID', a.id);
        w.leaf('cbc:DocumentDescription', a.description);
        if (a.content || a.uri) {
          w.el('cac:Attachment', () => {
            if (a.content) w.leaf('cbc:EmbeddedDocumentBinaryObject', a.content.base64, { mimeCode: a.content.mimeCode, filename: a.content.filename });
            if (a.uri) w.el('cac:ExternalReference', () => w.leaf('cbc:URI', a.uri));
          });
        }
      });
    }
    if (this.isCredit && c.tenderReference !== undefined) w.el('cac:OriginatorDocumentReference', () => w.leaf('cbc:ID', c.tenderReference));
    if (!this.isCredit && c.projectReference !== undefined) w.el('cac:ProjectReference', () => w.leaf('cbc:ID', c.projectReference));

    w.el('cac:AccountingSupplierParty', () => this.party(c.seller, true));
    w.el('cac:AccountingCustomerParty', () => this.party(c.buyer, false));
    if (c.payee) {
      const p = c.payee;
      w.el('cac:PayeeParty', () => {
        if (p.identifier) w.el('cac:PartyIdentification', () => w.leaf('cbc:ID', p.identifier!.value, schemeAttr(p.identifier)));
        w.el('cac:PartyName', () => w.leaf('cbc:Name', p.name));
        if (p.legalRegistration) w.el('cac:PartyLegalEntity', () => w.leaf('cbc:CompanyID', p.legalRegistration!.value, schemeAttr(p.legalRegistration)));
      });
    }
    if (c.taxRepresentative) {
      const t = c.taxRepresentative;
      w.el('cac:TaxRepresentativeParty', () => {
        w.el('cac:PartyName', () => w.leaf('cbc:Name', t.name));
        writePostalAddress(this.w, 'cac:PostalAddress', t.address);
        w.el('cac:PartyTaxScheme', () => {
          w.leaf('cbc:CompanyID', t.vatId);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
      });
    }
    if (c.delivery) {
      const d = c.delivery;
      w.el('cac:Delivery', () => {
        w.leaf('cbc:ActualDeliveryDate', d.actualDeliveryDate);
        if (d.locationId || d.address) {
          w.el('cac:DeliveryLocation', () => {
            if (d.locationId) w.leaf('cbc:ID', d.locationId.value, schemeAttr(d.locationId));
            if (d.address) writePostalAddress(this.w, 'cac:Address', d.address);
          });
        }
        if (d.partyName !== undefined) w.el('cac:DeliveryParty', () => w.el('cac:PartyName', () => w.leaf('cbc:Name', d.partyName)));
      });
    }
    this.paymentMeans();
    if (c.paymentTerms !== undefined) w.el('cac:PaymentTerms', () => w.leaf('cbc:Note', c.paymentTerms));
    for (const ac of c.allowanceCharges ?? []) this.allowanceCharge(ac, true);

    w.el('cac:TaxTotal', () => {
      this.amount('cbc:TaxAmount', c.totals.vatTotal ?? '0.00');
      for (const b of c.vatBreakdown) {
        w.el('cac:TaxSubtotal', () => {
          this.amount('cbc:TaxableAmount', b.taxableAmount);
          this.amount('cbc:TaxAmount', b.taxAmount);
          w.el('cac:TaxCategory', () => {
            w.leaf('cbc:ID', b.category);
            w.leaf('cbc:Percent', b.rate);
            w.leaf('cbc:TaxExemptionReasonCode', b.exemptionCode);
            w.leaf('cbc:TaxExemptionReason', b.exemptionReason);
            w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
          });
        });
      }
    }, undefined, c.totals.vatTotal !== undefined || c.vatBreakdown.length > 0);
    if (c.totals.vatTotalAccountingCurrency !== undefined && c.vatAccountingCurrency) {
      w.el('cac:TaxTotal', () => this.amount('cbc:TaxAmount', c.totals.vatTotalAccountingCurrency, c.vatAccountingCurrency));
    }
    writeLegalMonetaryTotal(w, c.totals, (name, value) => this.amount(name, value));
    c.lines.forEach((line, i) => this.line(line, i));
    w.close(root);
    return w.toString();
  }

  private period(p: Period): void {
    this.w.el('cac:InvoicePeriod', () => {
      this.w.leaf('cbc:StartDate', p.start);
      this.w.leaf('cbc:EndDate', p.end);
      this.w.leaf('cbc:DescriptionCode', p.descriptionCode);
    });
  }


  private contact(ct: Contact): void {
    const { w } = this;
    w.el('cac:Contact', () => {
      w.leaf('cbc:Name', ct.name);
      w.leaf('cbc:Telephone', ct.phone);
      w.leaf('cbc:ElectronicMail', ct.email);
    });
  }

  private party(p: Party, isSeller: boolean): void {
    const { w } = this;
    w.el('cac:Party', () => {
      if (p.electronicAddress) w.leaf('cbc:EndpointID', p.electronicAddress.value, schemeAttr(p.electronicAddress));
      for (const id of p.identifiers ?? []) w.el('cac:PartyIdentification', () => w.leaf('cbc:ID', id.value, schemeAttr(id)));
      if (p.tradingName !== undefined) w.el('cac:PartyName', () => w.leaf('cbc:Name', p.tradingName));
      // UBL requires an address on the party when any is present; Peppol requires BG-5/BG-8 always.
      writePostalAddress(this.w, 'cac:PostalAddress', p.address ?? {});
      if (p.vatId !== undefined) {
        w.el('cac:PartyTaxScheme', () => {
          w.leaf('cbc:CompanyID', p.vatId);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
      }
      if (isSeller && p.taxRegistrationId !== undefined) {
        w.el('cac:PartyTaxScheme', () => {
          w.leaf('cbc:CompanyID', p.taxRegistrationId);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'TAX'));
        });
      }
      w.el('cac:PartyLegalEntity', () => {
        w.leaf('cbc:RegistrationName', p.name);
        if (p.legalRegistration) w.leaf('cbc:CompanyID', p.legalRegistration.value, schemeAttr(p.legalRegistration));
        if (isSeller) w.leaf('cbc:CompanyLegalForm', p.additionalLegalInfo);
      });
      if (p.contact) this.contact(p.contact);
    });
  }

  private paymentMeans(): void {
    const { w, c } = this;
    const pi = c.paymentInstructions;
    // CreditNote has no DueDate element: BT-9 travels as PaymentMeans/PaymentDueDate there.
    const creditDue = this.isCredit ? c.dueDate : undefined;
    if (!pi) {
      if (creditDue !== undefined) {
        throw new MappingError('INVALID_REQUEST', 'A credit note due date (BT-9) needs payment instructions (BG-16) to be written in UBL', [
          { field: 'document.dueDate', rule: 'ubl-credit-note-due-date', message: 'add payment means to carry the due date' },
        ]);
      }
      return;
    }
    const transfers = pi.creditTransfers && pi.creditTransfers.length > 0 ? pi.creditTransfers : [undefined];
    transfers.forEach((ct, i) => {
      w.el('cac:PaymentMeans', () => {
        w.leaf('cbc:PaymentMeansCode', pi.meansCode, pi.meansText !== undefined ? { name: pi.meansText } : undefined);
        w.leaf('cbc:PaymentDueDate', creditDue);
        w.leaf('cbc:PaymentID', pi.remittanceInformation);
        if (i === 0 && pi.card) {
          const card = pi.card;
          w.el('cac:CardAccount', () => {
            w.leaf('cbc:PrimaryAccountNumberID', card.accountNumber);
            w.leaf('cbc:NetworkID', card.network ?? 'NA');
            w.leaf('cbc:HolderName', card.holderName);
          });
        }
        if (ct) {
          w.el('cac:PayeeFinancialAccount', () => {
            w.leaf('cbc:ID', ct.accountId);
            w.leaf('cbc:Name', ct.accountName);
            if (ct.serviceProviderId !== undefined) w.el('cac:FinancialInstitutionBranch', () => w.leaf('cbc:ID', ct.serviceProviderId));
          });
        }
        if (i === 0 && pi.directDebit) {
          const dd = pi.directDebit;
          w.el('cac:PaymentMandate', () => {
            w.leaf('cbc:ID', dd.mandateReference);
            if (dd.debitedAccountId !== undefined) w.el('cac:PayerFinancialAccount', () => w.leaf('cbc:ID', dd.debitedAccountId));
          });
        }
      });
    });
  }

  private allowanceCharge(ac: AllowanceCharge, documentLevel: boolean): void {
    const { w } = this;
    w.el('cac:AllowanceCharge', () => {
      w.leaf('cbc:ChargeIndicator', ac.isCharge ? 'true' : 'false');
      w.leaf('cbc:AllowanceChargeReasonCode', ac.reasonCode);
      w.leaf('cbc:AllowanceChargeReason', ac.reason);
      w.leaf('cbc:MultiplierFactorNumeric', ac.percentage);
      this.amount('cbc:Amount', ac.amount);
      this.amount('cbc:BaseAmount', ac.baseAmount);
      if (documentLevel && ac.vatCategory !== undefined) {
        w.el('cac:TaxCategory', () => {
          w.leaf('cbc:ID', ac.vatCategory);
          w.leaf('cbc:Percent', ac.vatRate);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
      }
    });
  }

  private line(l: Line, index: number): void {
    const { w } = this;
    const tag = this.isCredit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine';
    w.el(tag, () => {
      // The UBL schema requires the line ID; a line without BT-126 (e.g. from a CII source) gets its position.
      w.leaf('cbc:ID', l.id ?? String(index + 1));
      w.leaf('cbc:Note', l.note);
      w.leaf(this.isCredit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', l.quantity, { unitCode: l.unit });
      this.amount('cbc:LineExtensionAmount', l.netAmount);
      w.leaf('cbc:AccountingCost', l.accountingCost);
      if (l.period) w.el('cac:InvoicePeriod', () => {
        w.leaf('cbc:StartDate', l.period!.start);
        w.leaf('cbc:EndDate', l.period!.end);
      });
      if (l.orderLineReference !== undefined) w.el('cac:OrderLineReference', () => w.leaf('cbc:LineID', l.orderLineReference));
      if (l.despatchAdviceLineReference !== undefined || l.despatchAdviceReference !== undefined) {
        w.el('cac:DespatchLineReference', () => {
          w.leaf('cbc:LineID', l.despatchAdviceLineReference ?? 'NA');
          if (l.despatchAdviceReference !== undefined) w.el('cac:DocumentReference', () => w.leaf('cbc:ID', l.despatchAdviceReference));
        });
      }
      if (l.objectIdentifier) {
        w.el('cac:DocumentReference', () => {
          w.leaf('cbc:ID', l.objectIdentifier!.value, schemeAttr(l.objectIdentifier));
          w.leaf('cbc:DocumentTypeCode', '130');
        });
      }
      for (const ac of l.allowanceCharges ?? []) this.allowanceCharge(ac, false);
      const it = l.item;
      w.el('cac:Item', () => {
        w.leaf('cbc:Description', it.description);
        w.leaf('cbc:Name', it.name);
        if (it.buyerId !== undefined) w.el('cac:BuyersItemIdentification', () => w.leaf('cbc:ID', it.buyerId));
        if (it.sellerId !== undefined) w.el('cac:SellersItemIdentification', () => w.leaf('cbc:ID', it.sellerId));
        if (it.standardId) w.el('cac:StandardItemIdentification', () => w.leaf('cbc:ID', it.standardId!.value, schemeAttr(it.standardId)));
        if (it.originCountry !== undefined) w.el('cac:OriginCountry', () => w.leaf('cbc:IdentificationCode', it.originCountry));
        for (const cl of it.classifications ?? []) {
          w.el('cac:CommodityClassification', () => w.leaf('cbc:ItemClassificationCode', cl.value, { listID: cl.scheme, listVersionID: cl.version }));
        }
        w.el('cac:ClassifiedTaxCategory', () => {
          w.leaf('cbc:ID', l.vat.category);
          w.leaf('cbc:Percent', l.vat.rate);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
        for (const at of it.attributes ?? []) {
          w.el('cac:AdditionalItemProperty', () => {
            w.leaf('cbc:Name', at.name);
            w.leaf('cbc:Value', at.value);
          });
        }
      });
      const p = l.price;
      w.el('cac:Price', () => {
        this.amount('cbc:PriceAmount', p.netPrice);
        w.leaf('cbc:BaseQuantity', p.baseQuantity, p.baseUnit !== undefined ? { unitCode: p.baseUnit } : undefined);
        if (p.discount !== undefined || p.grossPrice !== undefined) {
          w.el('cac:AllowanceCharge', () => {
            w.leaf('cbc:ChargeIndicator', 'false');
            this.amount('cbc:Amount', p.discount ?? '0');
            this.amount('cbc:BaseAmount', p.grossPrice);
          });
        }
      });
    });
  }
}

/** Renders the canonical document as a UBL 2.1 Invoice (or CreditNote for credit-note kinds). */

/** A postal address (BG-5, BG-8, BG-12, BG-15) as UBL's address aggregate, in the schema's order. */
export function writePostalAddress(w: XmlWriter, name: string, a: Address): void {
  w.el(name, () => {
    w.leaf('cbc:StreetName', a.line1);
    w.leaf('cbc:AdditionalStreetName', a.line2);
    w.leaf('cbc:CityName', a.city);
    w.leaf('cbc:PostalZone', a.postalCode);
    w.leaf('cbc:CountrySubentity', a.subdivision);
    if (a.line3 !== undefined) w.el('cac:AddressLine', () => w.leaf('cbc:Line', a.line3));
    if (a.country !== undefined) w.el('cac:Country', () => w.leaf('cbc:IdentificationCode', a.country));
  });
}

/** BG-22 as UBL's cac:LegalMonetaryTotal, in the schema's order (every UBL invoice writer of ours writes it so). */
export function writeLegalMonetaryTotal(w: XmlWriter, t: CanonicalInvoice['totals'], amount: (name: string, value: string | undefined) => void): void {
  w.el('cac:LegalMonetaryTotal', () => {
    amount('cbc:LineExtensionAmount', t.lineNetTotal);
    amount('cbc:TaxExclusiveAmount', t.taxExclusive);
    amount('cbc:TaxInclusiveAmount', t.taxInclusive);
    amount('cbc:AllowanceTotalAmount', t.allowanceTotal);
    amount('cbc:ChargeTotalAmount', t.chargeTotal);
    amount('cbc:PrepaidAmount', t.prepaid);
    amount('cbc:PayableRoundingAmount', t.rounding);
    // UBL requires PayableAmount; a template without BT-115 still gets the XSD's element.
    amount('cbc:PayableAmount', t.payable ?? t.taxInclusive ?? '0.00');
  });
}

export function canonicalToUbl(c: CanonicalInvoice): string {
  const docType = c.extensions?.documentType;
  if (docType !== undefined && NON_BILLING_TYPES.has(docType)) {
    throw new MappingError('INVALID_REQUEST', `A ${docType} has no UBL Invoice/CreditNote rendering`, [
      { field: 'type', rule: 'ubl-invoice-types', message: 'only invoice, credit-note and debit-note render as UBL invoices' },
    ]);
  }
  if (c.lines.length === 0) {
    // A UBL invoice needs a line (schema and BR-16); a MINIMUM/BASIC WL Factur-X has none to carry over.
    throw new MappingError('INVALID_REQUEST', 'A UBL invoice needs at least one invoice line (BR-16)', [
      { field: 'document.lines', rule: 'BR-16', message: 'the document has no invoice line to render' },
    ]);
  }
  return new UblRenderer(c).render();
}
