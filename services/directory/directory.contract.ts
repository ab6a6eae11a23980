/**
 * directory: who is reachable. Today it answers for the participants of this platform (the
 * companies tenancy holds); SMP/SML discovery and the French directory plug in here, behind the
 * same action, without its callers changing.
 */
import { defineAction } from '../shared/contract.ts';
import type { DirectoryEntry, Participant } from '../../adapters/sdk/index.ts';

const SERVICE = 'directory';

/** Document types a company of this platform receives. */
export const PLATFORM_DOCUMENT_TYPES = ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt'] as const;

/** A participant among this platform's companies of that mode, or null. */
export const lookupParticipant = defineAction<{ participant: Participant; livemode: boolean }, DirectoryEntry | null>(SERVICE, 'lookupParticipant', {
  params: { participant: 'object', livemode: 'boolean' },
});
