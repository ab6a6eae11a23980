export const CII_RSM_NS = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
export const CII_RAM_NS = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';
export const CII_UDT_NS = 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100';
export const CII_QDT_NS = 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100';

/**
 * BT-8 (VAT point date code): the semantic model and UBL use UNCL2005 (3 invoice date, 35 delivery
 * date, 432 paid to date); the CII binding writes the same three meanings in UNCL2475 (5, 29, 72).
 * The canonical model keeps the UNCL2005 value; other values pass through as written.
 */
export const CII_DUE_DATE_TYPE_CODES: Readonly<Record<string, string>> = { '3': '5', '35': '29', '432': '72' };
export const UNCL2005_OF_CII_DUE_DATE_TYPE_CODE: Readonly<Record<string, string>> = { '5': '3', '29': '35', '72': '432' };
