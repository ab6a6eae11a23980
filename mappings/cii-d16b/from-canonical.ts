/**
 * Canonical → UN/CEFACT CII D16B CrossIndustryInvoice (EN 16931-3-3 binding). Element order is the
 * D16B schema's sequence order.
 */
import type { Address, AllowanceCharge, CanonicalInvoice, Party, SchemedId } from '../canonical/model.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CII_DUE_DATE_TYPE_CODES, CII_QDT_NS, CII_RAM_NS, CII_RSM_NS, CII_UDT_NS } from './namespaces.ts';

const IBAN_RE = /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/;

function d102(date: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? date.replaceAll('-', '') : date;
}

class CiiRenderer {
  private readonly w = new XmlWriter();
  private readonly c: CanonicalInvoice;

  constructor(c: CanonicalInvoice) {
    this.c = c;
  }

  private date(name: string, value: string | undefined, prefix = 'udt', element = 'DateTimeString'): void {
    if (value === undefined) return;
    this.w.el(name, () => this.w.leaf(`${prefix}:${element}`, d102(value), { format: '102' }));
  }

  private id(name: string, id: SchemedId | undefined): void {
    if (id) this.w.leaf(name, id.value, id.scheme !== undefined ? { schemeID: id.scheme } : undefined);
  }

  render(): string {
    const { w, c } = this;
    w.open('rsm:CrossIndustryInvoice', { 'xmlns:rsm': CII_RSM_NS, 'xmlns:ram': CII_RAM_NS, 'xmlns:udt': CII_UDT_NS, 'xmlns:qdt': CII_QDT_NS });
    w.el('rsm:ExchangedDocumentContext', () => {
      if (c.profileId !== undefined) w.el('ram:BusinessProcessSpecifiedDocumentContextParameter', () => w.leaf('ram:ID', c.profileId));
      w.el('ram:GuidelineSpecifiedDocumentContextParameter', () => w.leaf('ram:ID', c.customizationId));
    });
    w.el('rsm:ExchangedDocument', () => {
      w.leaf('ram:ID', c.number);
      w.leaf('ram:TypeCode', c.typeCode);
      this.date('ram:IssueDateTime', c.issueDate);
      for (const n of c.notes ?? []) w.el('ram:IncludedNote', () => {
        w.leaf('ram:Content', n.text);
        w.leaf('ram:SubjectCode', n.subjectCode);
      });
    });
    w.el('rsm:SupplyChainTradeTransaction', () => {
      c.lines.forEach((l, i) => this.line(l, i));
      this.agreement();
      this.delivery();
      this.settlement();
    });
    w.close('rsm:CrossIndustryInvoice');
    return w.toString();
  }

  private line(l: CanonicalInvoice['lines'][number], index: number): void {
    const { w } = this;
    w.el('ram:IncludedSupplyChainTradeLineItem', () => {
      w.el('ram:AssociatedDocumentLineDocument', () => {
        w.leaf('ram:LineID', l.id ?? String(index + 1)); // required by the D16B schema
        if (l.note !== undefined) w.el('ram:IncludedNote', () => w.leaf('ram:Content', l.note));
      });
      const it = l.item;
      w.el('ram:SpecifiedTradeProduct', () => {
        this.id('ram:GlobalID', it.standardId);
        w.leaf('ram:SellerAssignedID', it.sellerId);
        w.leaf('ram:BuyerAssignedID', it.buyerId);
        w.leaf('ram:Name', it.name);
        w.leaf('ram:Description', it.description);
        for (const a of it.attributes ?? []) w.el('ram:ApplicableProductCharacteristic', () => {
          w.leaf('ram:Description', a.name);
          w.leaf('ram:Value', a.value);
        });
        for (const cl of it.classifications ?? []) {
          w.el('ram:DesignatedProductClassification', () => w.leaf('ram:ClassCode', cl.value, { listID: cl.scheme, listVersionID: cl.version }));
        }
        if (it.originCountry !== undefined) w.el('ram:OriginTradeCountry', () => w.leaf('ram:ID', it.originCountry));
      });
      const p = l.price;
      w.el('ram:SpecifiedLineTradeAgreement', () => {
        if (l.orderLineReference !== undefined) w.el('ram:BuyerOrderReferencedDocument', () => w.leaf('ram:LineID', l.orderLineReference));
        if (p.grossPrice !== undefined || p.discount !== undefined) {
          w.el('ram:GrossPriceProductTradePrice', () => {
            w.leaf('ram:ChargeAmount', p.grossPrice ?? p.netPrice);
            if (p.discount !== undefined) w.el('ram:AppliedTradeAllowanceCharge', () => {
              w.el('ram:ChargeIndicator', () => w.leaf('udt:Indicator', 'false'));
              w.leaf('ram:ActualAmount', p.discount);
            });
          });
        }
        w.el('ram:NetPriceProductTradePrice', () => {
          w.leaf('ram:ChargeAmount', p.netPrice);
          w.leaf('ram:BasisQuantity', p.baseQuantity, p.baseUnit !== undefined ? { unitCode: p.baseUnit } : undefined);
        });
      });
      w.el('ram:SpecifiedLineTradeDelivery', () => {
        w.leaf('ram:BilledQuantity', l.quantity, { unitCode: l.unit });
        if (l.despatchAdviceReference !== undefined || l.despatchAdviceLineReference !== undefined) {
          w.el('ram:DespatchAdviceReferencedDocument', () => {
            w.leaf('ram:IssuerAssignedID', l.despatchAdviceReference);
            w.leaf('ram:LineID', l.despatchAdviceLineReference);
          });
        }
      });
      w.el('ram:SpecifiedLineTradeSettlement', () => {
        w.el('ram:ApplicableTradeTax', () => {
          w.leaf('ram:TypeCode', 'VAT');
          w.leaf('ram:CategoryCode', l.vat.category);
          w.leaf('ram:RateApplicablePercent', l.vat.rate);
        });
        if (l.period) w.el('ram:BillingSpecifiedPeriod', () => {
          this.date('ram:StartDateTime', l.period!.start);
          this.date('ram:EndDateTime', l.period!.end);
        });
        for (const ac of l.allowanceCharges ?? []) this.allowanceCharge(ac, false);
        w.el('ram:SpecifiedTradeSettlementLineMonetarySummation', () => w.leaf('ram:LineTotalAmount', l.netAmount));
        if (l.objectIdentifier) w.el('ram:AdditionalReferencedDocument', () => {
          w.leaf('ram:IssuerAssignedID', l.objectIdentifier!.value);
          w.leaf('ram:TypeCode', '130');
          w.leaf('ram:ReferenceTypeCode', l.objectIdentifier!.scheme);
        });
        if (l.accountingCost !== undefined) w.el('ram:ReceivableSpecifiedTradeAccountingAccount', () => w.leaf('ram:ID', l.accountingCost));
      });
    });
  }

  private address(name: string, a: Address | undefined): void {
    if (!a) return;
    const { w } = this;
    w.el(name, () => {
      w.leaf('ram:PostcodeCode', a.postalCode);
      w.leaf('ram:LineOne', a.line1);
      w.leaf('ram:LineTwo', a.line2);
      w.leaf('ram:LineThree', a.line3);
      w.leaf('ram:CityName', a.city);
      w.leaf('ram:CountryID', a.country);
      w.leaf('ram:CountrySubDivisionName', a.subdivision);
    });
  }

  private party(name: string, p: Party, isSeller: boolean): void {
    const { w } = this;
    w.el(name, () => {
      // BT-90 (scheme SEPA) travels as CreditorReferenceID in CII, not as a party identifier.
      const ids = (p.identifiers ?? []).filter((id) => !(isSeller && id.scheme === 'SEPA'));
      for (const id of ids) if (id.scheme === undefined) w.leaf('ram:ID', id.value);
      for (const id of ids) if (id.scheme !== undefined) w.leaf('ram:GlobalID', id.value, { schemeID: id.scheme });
      w.leaf('ram:Name', p.name);
      if (isSeller) w.leaf('ram:Description', p.additionalLegalInfo);
      if (p.legalRegistration || p.tradingName !== undefined) {
        w.el('ram:SpecifiedLegalOrganization', () => {
          this.id('ram:ID', p.legalRegistration);
          w.leaf('ram:TradingBusinessName', p.tradingName);
        });
      }
      if (p.contact) {
        const ct = p.contact;
        w.el('ram:DefinedTradeContact', () => {
          w.leaf('ram:PersonName', ct.name);
          if (ct.phone !== undefined) w.el('ram:TelephoneUniversalCommunication', () => w.leaf('ram:CompleteNumber', ct.phone));
          if (ct.email !== undefined) w.el('ram:EmailURIUniversalCommunication', () => w.leaf('ram:URIID', ct.email));
        });
      }
      this.address('ram:PostalTradeAddress', p.address);
      if (p.electronicAddress) w.el('ram:URIUniversalCommunication', () => this.id('ram:URIID', p.electronicAddress));
      if (p.vatId !== undefined) w.el('ram:SpecifiedTaxRegistration', () => w.leaf('ram:ID', p.vatId, { schemeID: 'VA' }));
      if (isSeller && p.taxRegistrationId !== undefined) w.el('ram:SpecifiedTaxRegistration', () => w.leaf('ram:ID', p.taxRegistrationId, { schemeID: 'FC' }));
    });
  }

  private agreement(): void {
    const { w, c } = this;
    w.el('ram:ApplicableHeaderTradeAgreement', () => {
      w.leaf('ram:BuyerReference', c.buyerReference);
      this.party('ram:SellerTradeParty', c.seller, true);
      this.party('ram:BuyerTradeParty', c.buyer, false);
      if (c.taxRepresentative) {
        const t = c.taxRepresentative;
        w.el('ram:SellerTaxRepresentativeTradeParty', () => {
          w.leaf('ram:Name', t.name);
          this.address('ram:PostalTradeAddress', t.address);
          w.el('ram:SpecifiedTaxRegistration', () => w.leaf('ram:ID', t.vatId, { schemeID: 'VA' }));
        });
      }
      if (c.salesOrderReference !== undefined) w.el('ram:SellerOrderReferencedDocument', () => w.leaf('ram:IssuerAssignedID', c.salesOrderReference));
      if (c.orderReference !== undefined) w.el('ram:BuyerOrderReferencedDocument', () => w.leaf('ram:IssuerAssignedID', c.orderReference));
      if (c.contractReference !== undefined) w.el('ram:ContractReferencedDocument', () => w.leaf('ram:IssuerAssignedID', c.contractReference));
      for (const a of c.attachments ?? []) {
        w.el('ram:AdditionalReferencedDocument', () => {
          w.leaf('ram:IssuerAssignedID', a.id);
          w.leaf('ram:URIID', a.uri);
          w.leaf('ram:TypeCode', '916');
          w.leaf('ram:Name', a.description);
          if (a.content) w.leaf('ram:AttachmentBinaryObject', a.content.base64, { mimeCode: a.content.mimeCode, filename: a.content.filename });
        });
      }
      if (c.tenderReference !== undefined) w.el('ram:AdditionalReferencedDocument', () => {
        w.leaf('ram:IssuerAssignedID', c.tenderReference);
        w.leaf('ram:TypeCode', '50');
      });
      if (c.invoicedObjectIdentifier) w.el('ram:AdditionalReferencedDocument', () => {
        w.leaf('ram:IssuerAssignedID', c.invoicedObjectIdentifier!.value);
        w.leaf('ram:TypeCode', '130');
        w.leaf('ram:ReferenceTypeCode', c.invoicedObjectIdentifier!.scheme);
      });
      if (c.projectReference !== undefined) w.el('ram:SpecifiedProcuringProject', () => {
        w.leaf('ram:ID', c.projectReference);
        w.leaf('ram:Name', 'Project reference');
      });
    });
  }

  private delivery(): void {
    const { w, c } = this;
    const d = c.delivery;
    w.el('ram:ApplicableHeaderTradeDelivery', () => {
      if (d && (d.locationId || d.partyName !== undefined || d.address)) {
        w.el('ram:ShipToTradeParty', () => {
          if (d.locationId?.scheme !== undefined) this.id('ram:GlobalID', d.locationId);
          else if (d.locationId) w.leaf('ram:ID', d.locationId.value);
          w.leaf('ram:Name', d.partyName);
          this.address('ram:PostalTradeAddress', d.address);
        });
      }
      if (d?.actualDeliveryDate !== undefined) w.el('ram:ActualDeliverySupplyChainEvent', () => this.date('ram:OccurrenceDateTime', d.actualDeliveryDate));
      if (c.despatchAdviceReference !== undefined) w.el('ram:DespatchAdviceReferencedDocument', () => w.leaf('ram:IssuerAssignedID', c.despatchAdviceReference));
      if (c.receivingAdviceReference !== undefined) w.el('ram:ReceivingAdviceReferencedDocument', () => w.leaf('ram:IssuerAssignedID', c.receivingAdviceReference));
    });
  }

  private allowanceCharge(ac: AllowanceCharge, documentLevel: boolean): void {
    const { w } = this;
    w.el('ram:SpecifiedTradeAllowanceCharge', () => {
      w.el('ram:ChargeIndicator', () => w.leaf('udt:Indicator', ac.isCharge ? 'true' : 'false'));
      w.leaf('ram:CalculationPercent', ac.percentage);
      w.leaf('ram:BasisAmount', ac.baseAmount);
      w.leaf('ram:ActualAmount', ac.amount);
      w.leaf('ram:ReasonCode', ac.reasonCode);
      w.leaf('ram:Reason', ac.reason);
      if (documentLevel && ac.vatCategory !== undefined) {
        w.el('ram:CategoryTradeTax', () => {
          w.leaf('ram:TypeCode', 'VAT');
          w.leaf('ram:CategoryCode', ac.vatCategory);
          w.leaf('ram:RateApplicablePercent', ac.vatRate);
        });
      }
    });
  }

  private settlement(): void {
    const { w, c } = this;
    const pi = c.paymentInstructions;
    const creditor = c.seller.identifiers?.find((id) => id.scheme === 'SEPA');
    w.el('ram:ApplicableHeaderTradeSettlement', () => {
      w.leaf('ram:CreditorReferenceID', creditor?.value);
      w.leaf('ram:PaymentReference', pi?.remittanceInformation);
      w.leaf('ram:TaxCurrencyCode', c.vatAccountingCurrency);
      w.leaf('ram:InvoiceCurrencyCode', c.currency);
      if (c.payee) {
        const p = c.payee;
        w.el('ram:PayeeTradeParty', () => {
          if (p.identifier?.scheme !== undefined) this.id('ram:GlobalID', p.identifier);
          else if (p.identifier) w.leaf('ram:ID', p.identifier.value);
          w.leaf('ram:Name', p.name);
          if (p.legalRegistration) w.el('ram:SpecifiedLegalOrganization', () => this.id('ram:ID', p.legalRegistration));
        });
      }
      if (pi) {
        const transfers = pi.creditTransfers && pi.creditTransfers.length ? pi.creditTransfers : [undefined];
        transfers.forEach((ct, i) => {
          w.el('ram:SpecifiedTradeSettlementPaymentMeans', () => {
            w.leaf('ram:TypeCode', pi.meansCode);
            w.leaf('ram:Information', pi.meansText);
            if (i === 0 && pi.card) w.el('ram:ApplicableTradeSettlementFinancialCard', () => {
              w.leaf('ram:ID', pi.card!.accountNumber);
              w.leaf('ram:CardholderName', pi.card!.holderName);
            });
            if (i === 0 && pi.directDebit?.debitedAccountId !== undefined) {
              w.el('ram:PayerPartyDebtorFinancialAccount', () => w.leaf('ram:IBANID', pi.directDebit!.debitedAccountId));
            }
            if (ct) {
              w.el('ram:PayeePartyCreditorFinancialAccount', () => {
                if (IBAN_RE.test(ct.accountId)) w.leaf('ram:IBANID', ct.accountId);
                w.leaf('ram:AccountName', ct.accountName);
                if (!IBAN_RE.test(ct.accountId)) w.leaf('ram:ProprietaryID', ct.accountId);
              });
              if (ct.serviceProviderId !== undefined) w.el('ram:PayeeSpecifiedCreditorFinancialInstitution', () => w.leaf('ram:BICID', ct.serviceProviderId));
            }
          });
        });
      }
      const dueDateTypeCode = c.invoicingPeriod?.descriptionCode;
      c.vatBreakdown.forEach((b, i) => {
        w.el('ram:ApplicableTradeTax', () => {
          w.leaf('ram:CalculatedAmount', b.taxAmount);
          w.leaf('ram:TypeCode', 'VAT');
          w.leaf('ram:ExemptionReason', b.exemptionReason);
          w.leaf('ram:BasisAmount', b.taxableAmount);
          w.leaf('ram:CategoryCode', b.category);
          w.leaf('ram:ExemptionReasonCode', b.exemptionCode);
          // BT-7 is given once (CII-SR-461): in the first breakdown.
          if (i === 0 && c.taxPointDate !== undefined) this.date('ram:TaxPointDate', c.taxPointDate, 'udt', 'DateString'); // udt:DateType
          w.leaf('ram:DueDateTypeCode', dueDateTypeCode !== undefined ? CII_DUE_DATE_TYPE_CODES[dueDateTypeCode] ?? dueDateTypeCode : undefined);
          w.leaf('ram:RateApplicablePercent', b.rate);
        });
      });
      const period = c.invoicingPeriod;
      if (period && (period.start !== undefined || period.end !== undefined)) {
        w.el('ram:BillingSpecifiedPeriod', () => {
          this.date('ram:StartDateTime', period.start);
          this.date('ram:EndDateTime', period.end);
        });
      }
      for (const ac of c.allowanceCharges ?? []) this.allowanceCharge(ac, true);
      const mandate = pi?.directDebit?.mandateReference;
      if (c.paymentTerms !== undefined || c.dueDate !== undefined || mandate !== undefined) {
        w.el('ram:SpecifiedTradePaymentTerms', () => {
          w.leaf('ram:Description', c.paymentTerms);
          this.date('ram:DueDateDateTime', c.dueDate);
          w.leaf('ram:DirectDebitMandateID', mandate);
        });
      }
      const t = c.totals;
      w.el('ram:SpecifiedTradeSettlementHeaderMonetarySummation', () => {
        w.leaf('ram:LineTotalAmount', t.lineNetTotal);
        w.leaf('ram:ChargeTotalAmount', t.chargeTotal);
        w.leaf('ram:AllowanceTotalAmount', t.allowanceTotal);
        w.leaf('ram:TaxBasisTotalAmount', t.taxExclusive);
        w.leaf('ram:TaxTotalAmount', t.vatTotal, { currencyID: c.currency });
        if (c.vatAccountingCurrency) w.leaf('ram:TaxTotalAmount', t.vatTotalAccountingCurrency, { currencyID: c.vatAccountingCurrency });
        w.leaf('ram:RoundingAmount', t.rounding);
        w.leaf('ram:GrandTotalAmount', t.taxInclusive);
        w.leaf('ram:TotalPrepaidAmount', t.prepaid);
        w.leaf('ram:DuePayableAmount', t.payable);
      });
      const ref = c.precedingInvoices?.[0];
      if (ref) w.el('ram:InvoiceReferencedDocument', () => {
        w.leaf('ram:IssuerAssignedID', ref.number);
        this.date('ram:FormattedIssueDateTime', ref.issueDate, 'qdt');
      });
      if (c.buyerAccountingReference !== undefined) w.el('ram:ReceivableSpecifiedTradeAccountingAccount', () => w.leaf('ram:ID', c.buyerAccountingReference));
    });
  }
}

/** Renders the canonical document as a CII D16B CrossIndustryInvoice. */
export function canonicalToCii(c: CanonicalInvoice): string {
  return new CiiRenderer(c).render();
}
