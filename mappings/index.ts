/**
 * Public surface of mappings/: the canonical EN 16931 model and its translators. Pure code: no
 * Moleculer, ORM or network imports anywhere below this folder.
 */
export { MappingError } from './errors.ts';
export type { MappingErrorDetail, MappingErrorCode } from './errors.ts';
export type * from './canonical/model.ts';
export { jsonToCanonical, DOCUMENT_TYPES, DOCUMENT_SUBTYPES } from './json/to-canonical.ts';
export type { JsonToCanonicalOptions } from './json/to-canonical.ts';
export { jsonLocationOf, withJsonLocations } from './json/finding-paths.ts';
export type { JsonLocation } from './json/finding-paths.ts';
export { PEPPOL_BIS3_TEMPLATE, FR_CTC_TEMPLATE } from './json/templates.ts';
export type { Template, CustomFieldDefinition, SlotUse } from './json/templates.ts';
export { canonicalToUbl } from './ubl-2.1/from-canonical.ts';
export { peppolIdFromVat, parsePeppolId, countryOfPeppolId, ICD_BY_VAT_PREFIX } from './identifiers/peppol-id.ts';
export { isValidVatNumber, countryOfVat } from './identifiers/vat.ts';
export { isValidIban } from './identifiers/iban.ts';
export { ublToCanonical, ublTreeToCanonical } from './ubl-2.1/to-canonical.ts';
export type { ParsedDocument } from './ubl-2.1/to-canonical.ts';
export { canonicalToCii } from './cii-d16b/from-canonical.ts';
export { ciiToCanonical, ciiTreeToCanonical } from './cii-d16b/to-canonical.ts';
export { detectFormat } from './detect/format.ts';
export type { DetectedFormat, DetectedFormatName } from './detect/format.ts';
export { correctContentType, mediaTypeOfBytes } from './detect/content-type.ts';
export { ingestAuto, rawDeposit } from './detect/deposit.ts';
export type { AutoDeposit, RawDeposit } from './detect/deposit.ts';
export { extractHybridPdf, readXmpFacturX } from './factur-x/extract.ts';
export type { HybridPdf, HybridProfile, HybridFlavour, XmpFacturX } from './factur-x/extract.ts';
export { parseRecipient, ROUTING_PREFIXES } from './addressing/recipient.ts';
export type { ParsedRecipient, RecipientRouting, RecipientEcho } from './addressing/recipient.ts';
export { detectUbl } from './ubl-2.1/detect.ts';
export { detectCii } from './cii-d16b/detect.ts';
export { detectPdf } from './factur-x/detect.ts';
export { canonicalToFacturX, facturXCii, FACTUR_X_FILENAME, FACTUR_X_XMP_NS } from './factur-x/from-canonical.ts';
export type { FacturX, FacturXOptions } from './factur-x/from-canonical.ts';
export { canonicalToHtml, escapeHtml, PREVIEW_CSP } from './render/html.ts';
export { canonicalToPdf, MISSING_GLYPH, DEGRADED_NOTICE } from './render/pdf.ts';
export { invoiceView, MAX_RENDERED_LINES } from './render/view.ts';
export type { InvoiceView } from './render/view.ts';
export { detectZugferd1 } from './zugferd-1/detect.ts';
export { zugferd1ToCanonical, zugferd1TreeToCanonical, zugferd1ProfileOf } from './zugferd-1/to-canonical.ts';
export { zugferd1DeliveryForm, EN16931_CUSTOMIZATION_ID } from './zugferd-1/delivery.ts';
export type { DeliveryTarget, DeliveryForm } from './zugferd-1/delivery.ts';
export { ZF1_RSM_NS, ZF1_XMP_NS, ZF1_PROFILES } from './zugferd-1/namespaces.ts';
export type { Zugferd1Profile } from './zugferd-1/namespaces.ts';
export { TRANSLATORS, translatorFor, ubl21, ciiD16b, fatturaPa12 } from './translators.ts';
export type { Translator, TranslatorId, TranslatedDocument } from './translators.ts';
export { SBDH_NS, SbdhError, readSbd, buildSbd, sbdhFor, sameParticipant, isDateTimeWithTimezone } from './peppol/sbdh.ts';
export type { SbdhHeader, SbdhErrorCode, PeppolIdentifier } from './peppol/sbdh.ts';
export { lifecycleToCdar, readCdar, CDV_STATUSES, STATUS_REASON_CODES, REASONS_BY_STATUS } from './cdar/index.ts';
export type { CdarInput, CdarFacts, CdarPartyFacts, CdarAmountFacts, CdarStatusDetail, CdvStatus } from './cdar/index.ts';
export { canonicalToFatturaPa, fatturaPaFileName } from './fatturapa/from-canonical.ts';
export type { FatturaPaOptions } from './fatturapa/from-canonical.ts';
export { fatturaPaToCanonical, fatturaPaBatchToCanonical, fatturaPaTreeToCanonical } from './fatturapa/to-canonical.ts';
export type { ParsedFatturaPa } from './fatturapa/to-canonical.ts';
export { detectFatturaPa } from './fatturapa/detect.ts';
export { FATTURAPA_NS, NATURA_CODES, naturaOf, categoryOfNatura } from './fatturapa/codes.ts';
export { canonicalToZatca, zatcaInvoiceHash, encodeZatcaQr, decodeZatcaQr, FIRST_PIH as ZATCA_FIRST_PIH } from './zatca/index.ts';
export type { ZatcaFacts, ZatcaStamp, ZatcaInvoiceKind, ZatcaQrFields } from './zatca/index.ts';
export { canonicalToCiusRoUbl, toCiusRo, CIUS_RO_CUSTOMIZATION_ID, romanianCountyCode, bucharestSector, cuiOfVat } from './ubl-2.1/cius-ro.ts';
export { toCiusFr, canonicalToFrenchUbl, jsonToFrenchUbl, frenchTemplate, FRENCH_PROFILES, FRENCH_CUSTOMIZATION_IDS, BILLING_FRAMEWORKS, PROCESSING_RULES, OPERATION_CATEGORIES, DEFAULT_PAYMENT_NOTES } from './ubl-2.1/cius-fr.ts';
export type { FrenchFacts, FrenchProfile, FrenchUbl } from './ubl-2.1/cius-fr.ts';
export { FRENCH_UBL_EXAMPLES, frenchUblExample } from './ubl-2.1/cius-fr-examples.ts';
export type { FrenchUblExample, FrenchUblRequest } from './ubl-2.1/cius-fr-examples.ts';
export { canonicalToFa3 } from './ksef-fa3/from-canonical.ts';
export type { Fa3Options } from './ksef-fa3/from-canonical.ts';
export { FA3_NS, FA3_FORM_CODE, isValidNip, nipOf } from './ksef-fa3/codes.ts';
export { fa3ToCanonical, fa3TreeToCanonical } from './ksef-fa3/to-canonical.ts';
export type { Fa3Parsed } from './ksef-fa3/to-canonical.ts';
export {
  PORTABILITY_STATES, PORTABILITY_STATUS_CODES, PORTABILITY_MESSAGE_TYPES, DIRECTION_ROLES, STATUS_CODE_BY_STATE, STATE_BY_STATUS_CODE, PORTABILITY_CSV_COLUMNS,
  statusCodeOf, stateOfStatusCode, messageTypeOf, buildSubject, parseSubject, buildPortabilityCsv, parseCsvRow, csvOf,
} from './portability/index.ts';
export type { PortabilityState, PortabilityStatusCode, PortabilityMessageType, DirectionRole, PortabilityCsvFields, PortabilityCsvRecord, ParsedPortabilitySubject } from './portability/index.ts';
export { documentFlow, lifecycleFlows, lifecycleFlowId, storedFlowInfo, FLOW_SYNTAXES, FLOW_PROFILES, FLOW_TYPES, FLOW_DIRECTIONS, FLOW_PROCESSING_RULES, ACK_STATUSES } from './afnor/flow.ts';
export type { Flow, FlowDocument, FlowLifecycle, FlowInfo, FlowSyntax, FlowType, FlowDirection, AckStatus } from './afnor/flow.ts';
