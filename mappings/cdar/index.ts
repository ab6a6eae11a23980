/** The French lifecycle message (CDAR D22B "cycle de vie"): writer, reader and code lists. */
export { lifecycleToCdar, sirenOf } from './to-cdar.ts';
export type { CdarInput, CdarEmitter } from './to-cdar.ts';
export { readCdar } from './read-cdar.ts';
export type { CdarFacts, CdarPartyFacts, CdarAmountFacts, CdarStatusDetail } from './read-cdar.ts';
export { CDAR_NS } from './namespaces.ts';
export { CDV_STATUSES, CDV_GUIDELINE, PPF_PARTY, STATUS_REASON_CODES, REASONS_BY_STATUS } from './codes.ts';
export type { CdvStatus } from './codes.ts';
export { CDAR_PEPPOL_DOCUMENT_TYPE_ID, CDAR_PEPPOL_DOCUMENT_TYPE, CDAR_PEPPOL_CUSTOMIZATION_ID, FRANCE_REGULATED_PROCESS } from './peppol.ts';
