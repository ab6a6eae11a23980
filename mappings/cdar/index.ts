/** The French lifecycle message (CDAR D22B "cycle de vie"): writer, reader and code lists. */
export { lifecycleToCdar, sirenOf } from './to-cdar.ts';
export type { CdarInput, CdarEmitter } from './to-cdar.ts';
export { readCdar } from './read-cdar.ts';
export type { CdarFacts, CdarPartyFacts, CdarAmountFacts, CdarStatusDetail } from './read-cdar.ts';
export { CDAR_NS } from './namespaces.ts';
export { CDV_STATUSES, CDV_GUIDELINE, PPF_PARTY, STATUS_REASON_CODES, REASONS_BY_STATUS } from './codes.ts';
export type { CdvStatus } from './codes.ts';
