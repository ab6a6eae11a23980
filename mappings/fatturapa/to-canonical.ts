/**
 * FatturaPA 1.2.x → canonical EN 16931, the reverse of from-canonical.ts (README.md has the table).
 * A FatturaPA file may hold a batch (lotto) of invoices to one buyer, one FatturaElettronicaBody
 * each: `fatturaPaBatchToCanonical` reads them all; `fatturaPaToCanonical` reads a file of one
 * invoice and refuses a batch rather than drop invoices. The caller's bytes travel unchanged.
 */
import type {
  AllowanceCharge, Address, Attachment, CanonicalInvoice, Contact, Line, Party, PaymentInstructions, VatBreakdown,
} from '../canonical/model.ts';
import { dec, money, sum } from '../canonical/decimal.ts';
import { defined, nonEmpty } from '../canonical/object.ts';
import { MappingError } from '../errors.ts';
import { at, kid, kids, readTree, txt, type XEl } from '../xml/tree.ts';
import {
  EAS_CODDEST, EAS_IPA, EAS_PEC, FATTURAPA_NS, MEANS_OF_MODALITA, NO_SDI_CODE, SCHEME_CODICE_FISCALE, TYPE_CODE_OF_TIPO,
  categoryOfNatura,
} from './codes.ts';
import { CUSTOM_FIELD_KEYS } from './italian-fields.ts';
import { EN16931_CUSTOMIZATION_ID } from '../zugferd-1/delivery.ts';

/** A FatturaPA document read into the canonical model. */
export interface ParsedFatturaPa {
  canonical: CanonicalInvoice;
  /** Exactly what the caller passed (same string or same Buffer). */
  original: string | Buffer;
  syntax: 'fatturapa-1.2';
  /** `FPA12` (to a public administration) or `FPR12`. */
  formato: string;
}

function address(el: XEl | undefined): Address | undefined {
  if (!el) return undefined;
  const street = txt(el, 'Indirizzo');
  const civico = txt(el, 'NumeroCivico');
  return nonEmpty<Address>({
    line1: street && civico ? `${street} ${civico}` : street,
    city: txt(el, 'Comune'),
    postalCode: txt(el, 'CAP'),
    subdivision: txt(el, 'Provincia'),
    country: txt(el, 'Nazione'),
  });
}

function nameOf(anagrafica: XEl | undefined): string {
  return txt(anagrafica, 'Denominazione') ?? [txt(anagrafica, 'Nome'), txt(anagrafica, 'Cognome')].filter(Boolean).join(' ');
}

function vatOf(datiAnagrafici: XEl | undefined): string | undefined {
  const id = kid(datiAnagrafici, 'IdFiscaleIVA');
  const country = txt(id, 'IdPaese');
  const code = txt(id, 'IdCodice');
  return country && code ? `${country}${code}` : undefined;
}

function party(el: XEl | undefined, electronicAddress?: Party['electronicAddress']): Party {
  const da = kid(el, 'DatiAnagrafici');
  const cf = txt(da, 'CodiceFiscale');
  const contatti = kid(el, 'Contatti');
  return defined<Party>({
    name: nameOf(kid(da, 'Anagrafica')),
    vatId: vatOf(da),
    legalRegistration: cf ? { value: cf, scheme: SCHEME_CODICE_FISCALE } : undefined,
    electronicAddress,
    address: address(kid(el, 'Sede')),
    contact: contatti ? nonEmpty<Contact>({ phone: txt(contatti, 'Telefono'), email: txt(contatti, 'Email') }) : undefined,
  });
}

/**
 * AliquotaIVA and Natura back to an EN 16931 category, rate and (for the non-standard ones) the
 * Natura as exemption code. A taxed rate is S, or B (split payment) when `splitRates` says the
 * summary at that rate has EsigibilitaIVA S.
 */
function vatOfRate(el: XEl, splitRates: ReadonlySet<string> = new Set()): { category: string; rate: string; natura?: string } {
  const rate = txt(el, 'AliquotaIVA') ?? '0.00';
  const natura = txt(el, 'Natura');
  if (natura) return { category: categoryOfNatura(natura), rate, natura };
  if (dec(rate).isZero()) return { category: 'Z', rate };
  return { category: splitRates.has(dec(rate).toFixed(2)) || txt(el, 'EsigibilitaIVA') === 'S' ? 'B' : 'S', rate };
}

function quantityOf(el: XEl): string | undefined {
  return txt(el, 'Quantita');
}

/** A line without quantity marked SC / AC is a document-level allowance / charge (what from-canonical writes). */
function isDocumentAllowanceCharge(el: XEl): boolean {
  const tipo = txt(el, 'TipoCessionePrestazione');
  return (tipo === 'SC' || tipo === 'AC') && quantityOf(el) === undefined;
}

function line(el: XEl, splitRates: ReadonlySet<string>): Line {
  const quantity = quantityOf(el) ?? '1.00';
  const vat = vatOfRate(el, splitRates);
  const codes = kids(el, 'CodiceArticolo').map((c) => ({ type: txt(c, 'CodiceTipo') ?? '', value: txt(c, 'CodiceValore') ?? '' }));
  const seller = codes.find((c) => c.type === 'SELLER');
  const buyer = codes.find((c) => c.type === 'BUYER');
  const standard = codes.find((c) => c !== seller && c !== buyer);
  const start = txt(el, 'DataInizioPeriodo');
  const end = txt(el, 'DataFinePeriodo');
  const qty = dec(quantity);
  return defined<Line>({
    id: txt(el, 'NumeroLinea'),
    quantity,
    // UnitaMisura is free text in FatturaPA; without one, a unit (C62) as EN 16931 requires.
    unit: txt(el, 'UnitaMisura') ?? 'C62',
    netAmount: txt(el, 'PrezzoTotale') ?? '0',
    period: nonEmpty({ start, end }),
    allowanceCharges: kids(el, 'ScontoMaggiorazione').map((s) => defined<AllowanceCharge>({
      isCharge: txt(s, 'Tipo') === 'MG',
      // Importo applies to the unit price; a percentage applies to the unit price too.
      amount: txt(s, 'Importo') !== undefined ? money(dec(txt(s, 'Importo')!).abs().times(qty.abs()))
        : money(dec(txt(el, 'PrezzoUnitario') ?? '0').times(qty).times(dec(txt(s, 'Percentuale') ?? '0')).div(100).abs()),
      percentage: txt(s, 'Percentuale'),
    })),
    price: { netPrice: txt(el, 'PrezzoUnitario') ?? '0' },
    vat: defined({ category: vat.category, rate: vat.rate, exemptionCode: vat.natura }),
    item: defined({
      name: txt(el, 'Descrizione') ?? '',
      sellerId: seller?.value,
      buyerId: buyer?.value,
      standardId: standard ? { value: standard.value, scheme: standard.type } : undefined,
    }),
  });
}

function allowanceCharge(el: XEl, splitRates: ReadonlySet<string>): AllowanceCharge {
  const vat = vatOfRate(el, splitRates);
  const amount = dec(txt(el, 'PrezzoTotale') ?? '0');
  return defined<AllowanceCharge>({
    isCharge: txt(el, 'TipoCessionePrestazione') === 'AC',
    amount: amount.abs().toFixed(Math.max(2, amount.decimalPlaces())),
    vatCategory: vat.category,
    vatRate: vat.rate,
    reason: txt(el, 'Descrizione'),
  });
}

function payment(body: XEl): { instructions?: PaymentInstructions; dueDate?: string; payable?: string } {
  const details = kids(body, 'DatiPagamento').flatMap((p) => kids(p, 'DettaglioPagamento'));
  const first = details[0];
  if (!first) return {};
  const iban = details.map((d) => txt(d, 'IBAN')).find(Boolean);
  const withIban = details.find((d) => txt(d, 'IBAN') === iban);
  const modalita = txt(first, 'ModalitaPagamento') ?? '';
  return {
    instructions: defined<PaymentInstructions>({
      meansCode: MEANS_OF_MODALITA[modalita] ?? 'ZZZ',
      remittanceInformation: txt(first, 'CodicePagamento'),
      creditTransfers: iban ? [defined({ accountId: iban, accountName: txt(withIban, 'Beneficiario'), serviceProviderId: txt(withIban, 'BIC') })] : [],
    }),
    dueDate: details.map((d) => txt(d, 'DataScadenzaPagamento')).find(Boolean),
    payable: money(sum(details.map((d) => txt(d, 'ImportoPagamento') ?? '0'))),
  };
}

function body(b: XEl, seller: Party, buyer: Party, regime: string | undefined): CanonicalInvoice {
  const gen = kid(b, 'DatiGenerali');
  const doc = kid(gen, 'DatiGeneraliDocumento');
  const tipo = txt(doc, 'TipoDocumento') ?? 'TD01';
  const goods = kid(b, 'DatiBeniServizi');
  const detailLines = kids(goods, 'DettaglioLinee');
  const splitRates = new Set(kids(goods, 'DatiRiepilogo').filter((r) => txt(r, 'EsigibilitaIVA') === 'S' && !txt(r, 'Natura')).map((r) => dec(txt(r, 'AliquotaIVA') ?? '0').toFixed(2)));
  const lines = detailLines.filter((l) => !isDocumentAllowanceCharge(l)).map((l) => line(l, splitRates));
  const allowanceCharges = detailLines.filter(isDocumentAllowanceCharge).map((l) => allowanceCharge(l, splitRates));
  const vatBreakdown: VatBreakdown[] = kids(goods, 'DatiRiepilogo').map((r) => {
    const vat = vatOfRate(r);
    return defined<VatBreakdown>({
      taxableAmount: txt(r, 'ImponibileImporto') ?? '0',
      taxAmount: txt(r, 'Imposta') ?? '0',
      category: vat.category,
      rate: vat.rate,
      exemptionReason: vat.natura ? txt(r, 'RiferimentoNormativo') : undefined,
      exemptionCode: vat.natura,
    });
  });
  const lineNetTotal = sum(lines.map((l) => l.netAmount));
  const allowanceTotal = sum(allowanceCharges.filter((a) => !a.isCharge).map((a) => a.amount));
  const chargeTotal = sum(allowanceCharges.filter((a) => a.isCharge).map((a) => a.amount));
  const taxExclusive = sum(vatBreakdown.map((v) => v.taxableAmount));
  const vatTotal = sum(vatBreakdown.map((v) => v.taxAmount));
  const taxInclusive = txt(doc, 'ImportoTotaleDocumento') ?? money(taxExclusive.plus(vatTotal));
  const pay = payment(b);
  const causali = kids(doc, 'Causale').map((c) => c.text.trim()).filter(Boolean);
  const attachments: Attachment[] = kids(b, 'Allegati').map((a) => {
    const name = txt(a, 'NomeAttachment') ?? 'allegato';
    const format = txt(a, 'FormatoAttachment');
    return defined<Attachment>({
      id: name,
      description: txt(a, 'DescrizioneAttachment'),
      content: { base64: (kid(a, 'Attachment')?.text ?? '').replace(/\s+/g, ''), mimeCode: format?.toUpperCase() === 'PDF' ? 'application/pdf' : 'application/octet-stream', filename: name },
    });
  });
  return defined<CanonicalInvoice>({
    kind: tipo === 'TD04' ? 'credit-note' : 'invoice',
    // FatturaPA names no EN 16931 specification: the core one.
    customizationId: EN16931_CUSTOMIZATION_ID,
    number: txt(doc, 'Numero') ?? '',
    issueDate: txt(doc, 'Data') ?? '',
    typeCode: TYPE_CODE_OF_TIPO[tipo] ?? '380',
    currency: txt(doc, 'Divisa') ?? '',
    dueDate: pay.dueDate,
    orderReference: txt(gen, 'DatiOrdineAcquisto', 'IdDocumento'),
    contractReference: txt(gen, 'DatiContratto', 'IdDocumento'),
    receivingAdviceReference: txt(gen, 'DatiRicezione', 'IdDocumento'),
    despatchAdviceReference: txt(gen, 'DatiDDT', 'NumeroDDT'),
    notes: causali.length ? [{ text: causali.join('') }] : undefined,
    precedingInvoices: kids(gen, 'DatiFattureCollegate').filter((f) => txt(f, 'IdDocumento')).map((f) => defined({ number: txt(f, 'IdDocumento')!, issueDate: txt(f, 'Data') })),
    seller,
    buyer,
    paymentInstructions: pay.instructions,
    allowanceCharges,
    totals: defined({
      lineNetTotal: money(lineNetTotal),
      allowanceTotal: allowanceCharges.some((a) => !a.isCharge) ? money(allowanceTotal) : undefined,
      chargeTotal: allowanceCharges.some((a) => a.isCharge) ? money(chargeTotal) : undefined,
      taxExclusive: money(taxExclusive),
      vatTotal: money(vatTotal),
      taxInclusive,
      rounding: txt(doc, 'Arrotondamento'),
      payable: pay.payable ?? taxInclusive,
    }),
    vatBreakdown,
    attachments,
    lines,
    extensions: regime ? { customFields: { party: 'seller', values: [{ key: CUSTOM_FIELD_KEYS.regimeFiscale, value: regime }] } } : undefined,
  });
}

/** Every invoice of a FatturaPA file (one per FatturaElettronicaBody), with the header's parties. */
export function fatturaPaTreeToCanonical(root: XEl): { invoices: CanonicalInvoice[]; formato: string } {
  if (root.name !== 'FatturaElettronica' || root.ns !== FATTURAPA_NS) {
    throw new MappingError('INVALID_REQUEST', `Not a FatturaPA 1.2 document (root {${root.ns}}${root.name})`, [
      { field: 'xml', rule: 'fatturapa-root', message: `root must be FatturaElettronica in ${FATTURAPA_NS}` },
    ]);
  }
  const header = kid(root, 'FatturaElettronicaHeader');
  const trasmissione = kid(header, 'DatiTrasmissione');
  const formato = txt(trasmissione, 'FormatoTrasmissione') ?? root.attrs.versione ?? '';
  const code = txt(trasmissione, 'CodiceDestinatario');
  const pec = txt(trasmissione, 'PECDestinatario');
  // The buyer's SDI address: its office code (FPA, EAS 0201), its SDI code (EAS 0205), or its PEC when it has no code.
  const electronicAddress = code && code !== NO_SDI_CODE
    ? { value: code, scheme: code.length === 6 ? EAS_IPA : EAS_CODDEST }
    : pec ? { value: pec, scheme: EAS_PEC } : undefined;
  const sellerEl = kid(header, 'CedentePrestatore');
  const seller = party(sellerEl);
  const buyer = party(kid(header, 'CessionarioCommittente'), electronicAddress);
  const regime = txt(at(sellerEl, 'DatiAnagrafici'), 'RegimeFiscale');
  const bodies = kids(root, 'FatturaElettronicaBody');
  if (bodies.length === 0) {
    throw new MappingError('INVALID_REQUEST', 'The FatturaPA document has no FatturaElettronicaBody', [{ field: 'xml', rule: 'fatturapa-body', message: 'at least one FatturaElettronicaBody is required' }]);
  }
  return { invoices: bodies.map((b) => body(b, seller, buyer, regime)), formato };
}

/** All the invoices of a FatturaPA file (a batch holds several); the original bytes travel beside them. */
export function fatturaPaBatchToCanonical(xml: string | Buffer): { invoices: CanonicalInvoice[]; original: string | Buffer; formato: string } {
  const { invoices, formato } = fatturaPaTreeToCanonical(readTree(xml, 'FatturaPA document'));
  return { invoices, original: xml, formato };
}

/** A FatturaPA file of one invoice. A batch is refused (read it with fatturaPaBatchToCanonical). */
export function fatturaPaToCanonical(xml: string | Buffer): ParsedFatturaPa {
  const { invoices, formato } = fatturaPaTreeToCanonical(readTree(xml, 'FatturaPA document'));
  if (invoices.length !== 1) {
    throw new MappingError('INVALID_REQUEST', `The FatturaPA file is a batch of ${invoices.length} invoices; one document holds one invoice`, [
      { field: 'xml', rule: 'fatturapa-batch', message: `${invoices.length} FatturaElettronicaBody elements` },
    ]);
  }
  return { canonical: invoices[0]!, original: xml, syntax: 'fatturapa-1.2', formato };
}
