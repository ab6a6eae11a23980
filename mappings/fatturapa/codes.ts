/**
 * FatturaPA 1.2.2 code lists and how EN 16931 codes meet them: the VAT nature (Natura) of a
 * non-standard-rated VAT category, the document type (TipoDocumento), the payment means
 * (ModalitaPagamento) and the tax regime (RegimeFiscale). Values are the published ones of the
 * Agenzia delle Entrate's schema and technical specification; the defaults that EN 16931 alone
 * cannot decide are named here once and documented in README.md.
 */

export const FATTURAPA_NS = 'http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2';

/** NaturaType of the 1.2.2 schema, without N2 / N3 / N6, which the SDI refuses since 1 January 2021. */
export const NATURA_CODES: ReadonlySet<string> = new Set([
  'N1', 'N2.1', 'N2.2', 'N3.1', 'N3.2', 'N3.3', 'N3.4', 'N3.5', 'N3.6', 'N4', 'N5',
  'N6.1', 'N6.2', 'N6.3', 'N6.4', 'N6.5', 'N6.6', 'N6.7', 'N6.8', 'N6.9', 'N7',
]);

/**
 * The Natura a VAT category gets when its exemption code does not name one. EN 16931 categories are
 * broader than the Italian natures, so each default is the nature's "other cases" code:
 * E exempt → N4 (esenti); AE reverse charge → N6.9 (inversione contabile, altri casi);
 * K intra-community supply → N3.2 (cessioni intracomunitarie); G export → N3.1 (esportazioni);
 * O outside the scope of VAT → N2.2 (non soggette, altri casi); Z zero rated → N3.6 (non imponibili,
 * altre operazioni). L and M (Canary Islands, Ceuta and Melilla) have no Italian nature.
 */
export const DEFAULT_NATURA: Readonly<Record<string, string>> = {
  E: 'N4', AE: 'N6.9', K: 'N3.2', G: 'N3.1', O: 'N2.2', Z: 'N3.6',
};

/** VATEX-EU codes (BT-121) whose Italian nature is narrower than the category default. */
const VATEX_NATURA: Readonly<Record<string, string>> = {
  'VATEX-EU-AE': 'N6.9',
  'VATEX-EU-IC': 'N3.2',
  'VATEX-EU-G': 'N3.1',
  'VATEX-EU-O': 'N2.2',
  'VATEX-EU-79-C': 'N1', // amounts paid in the name and for the account of the customer: escluse ex art. 15
  'VATEX-EU-D': 'N5', 'VATEX-EU-F': 'N5', 'VATEX-EU-I': 'N5', 'VATEX-EU-J': 'N5', // margin schemes: regime del margine
};

/**
 * The Natura of a bucket: a nature written as the exemption code itself (`N3.2`, as FatturaPA read
 * back gives it), our VATEX form of it (`VATEX-IT-N3-2`, which the JSON API's VATEX check accepts),
 * a VATEX-EU code with a narrower nature, or the category's default. Undefined for S, L, M.
 */
export function naturaOf(category: string, exemptionCode?: string): string | undefined {
  if (exemptionCode !== undefined) {
    if (NATURA_CODES.has(exemptionCode)) return exemptionCode;
    const it = /^VATEX-IT-(N\d)(?:-(\d))?$/.exec(exemptionCode);
    if (it) {
      const code = it[2] ? `${it[1]}.${it[2]}` : it[1]!;
      if (NATURA_CODES.has(code)) return code;
    }
    const eu = VATEX_NATURA[exemptionCode];
    if (eu && category !== 'S') return eu;
  }
  return DEFAULT_NATURA[category];
}

/** The EN 16931 category a FatturaPA nature reads back as (a rate above zero and no nature is S). */
export function categoryOfNatura(natura: string): string {
  if (natura === 'N3.1') return 'G';
  if (natura === 'N3.2') return 'K';
  if (natura.startsWith('N3')) return 'Z';
  if (natura.startsWith('N6')) return 'AE';
  if (natura === 'N4' || natura === 'N5') return 'E';
  return 'O'; // N1, N2.x, N7: outside the scope of Italian VAT
}

/** UNCL1001 (BT-3) → TipoDocumento. Any other invoice code is TD01; credit notes are TD04. */
export function tipoDocumentoOf(kind: 'invoice' | 'credit-note', typeCode: string | undefined): string {
  if (kind === 'credit-note') return 'TD04';
  if (typeCode === '383') return 'TD05'; // debit note: nota di debito
  if (typeCode === '386') return 'TD02'; // prepayment invoice: acconto/anticipo su fattura
  return 'TD01';
}

/** TipoDocumento → UNCL1001 (BT-3) as read back. */
export const TYPE_CODE_OF_TIPO: Readonly<Record<string, string>> = { TD01: '380', TD02: '386', TD04: '381', TD05: '383' };

/**
 * UNCL4461 (BT-81) → ModalitaPagamento: cash MP01, cheque MP02, credit transfer MP05, card MP08,
 * SEPA direct debit MP19 (other direct debit MP10, RID). Anything else is a transfer (MP05), the
 * Italian default for B2B and the one the public administration pays by.
 */
const MODALITA_OF_MEANS: Readonly<Record<string, string>> = {
  '10': 'MP01', '20': 'MP02', '30': 'MP05', '31': 'MP05', '42': 'MP05', '58': 'MP05',
  '48': 'MP08', '54': 'MP08', '55': 'MP08', '49': 'MP10', '59': 'MP19',
};
export function modalitaPagamentoOf(meansCode: string | undefined): string {
  return (meansCode !== undefined ? MODALITA_OF_MEANS[meansCode] : undefined) ?? 'MP05';
}

/** ModalitaPagamento → UNCL4461 as read back (the first code of each pair above; other MPxx: ZZZ). */
export const MEANS_OF_MODALITA: Readonly<Record<string, string>> = {
  MP01: '10', MP02: '20', MP05: '30', MP08: '48', MP10: '49', MP19: '59',
};

/** RegimeFiscaleType values (RF03 was withdrawn). RF01 is the ordinary regime. */
export const REGIME_FISCALE_CODES: ReadonlySet<string> = new Set([
  'RF01', 'RF02', 'RF04', 'RF05', 'RF06', 'RF07', 'RF08', 'RF09', 'RF10', 'RF11', 'RF12', 'RF13', 'RF14', 'RF15', 'RF16',
  'RF17', 'RF18', 'RF19',
]);
export const DEFAULT_REGIME_FISCALE = 'RF01';

/** CodiceDestinatario when the buyer names no SDI code: the SDI files the invoice in its tax drawer (or sends it to the PEC). */
export const NO_SDI_CODE = '0000000';
/** CodiceDestinatario a buyer abroad gets (the SDI forwards nothing; the seller sends the invoice by other means). */
export const FOREIGN_SDI_CODE = 'XXXXXXX';

/**
 * EAS schemes (BT-49-1) of Italian electronic addresses: 0201 IPA office code (6 characters, public
 * administration), 0205 SDI recipient code (CODDEST, 7 characters), 0202 certified e-mail (PEC).
 * 0210 is the Codice Fiscale and 0211 the Partita IVA.
 */
export const EAS_IPA = '0201';
export const EAS_PEC = '0202';
export const EAS_CODDEST = '0205';
export const SCHEME_CODICE_FISCALE = '0210';
