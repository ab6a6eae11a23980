import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { DIRECTION_ROLES, PORTABILITY_MESSAGE_TYPES, PORTABILITY_STATES, type PortabilityCsvFields } from '../../mappings/portability/index.ts';
import { MESSAGE_TRANSPORTS, type RecipientResolution } from './portability-messages.contract.ts';

/**
 * One portability message as it was built and what became of it: the exact subject and CSV (with
 * its digest), who it was addressed to and why, whether it was mailed (the SMTP message id) or why
 * not, and the annuaire as it stood. Written before the mail leaves and completed after, so a
 * message is on record whether or not it was mailed. Never changed afterwards.
 */
export const PortabilityMessage = defineEntity({
  name: 'PortabilityMessage',
  tableName: 'portability_messages',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization (a foreign key in the database). */
    organizationId: p.string(),
    livemode: p.boolean(),
    requestRef: p.string().length(128),
    messageType: p.enum(PORTABILITY_MESSAGE_TYPES),
    state: p.enum(PORTABILITY_STATES),
    statusCode: p.string().length(3),
    directionRole: p.enum(DIRECTION_ROLES).nullable(),
    taxpayerSiren: p.string().length(9),
    subject: p.text(),
    filename: p.string(),
    csvHeader: p.text(),
    csvRow: p.text(),
    csvFields: p.json<PortabilityCsvFields>(),
    csvSha256: p.string().length(64),
    reasonCode: p.string().nullable(),
    reasonText: p.text().nullable(),
    recipient: p.string().nullable(),
    recipientSource: p.string(),
    recipientResolution: p.json<RecipientResolution>(),
    dispatched: p.boolean().default(false),
    /** `sending` only between the record and the SMTP answer; then one of the spec's reasons or the mail error. */
    reason: p.text(),
    smtpMessageId: p.string().nullable(),
    transport: p.enum(MESSAGE_TRANSPORTS).nullable(),
    annuaire: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [
    { name: 'portability_messages_list_index', properties: ['organizationId', 'livemode', 'id'] },
    { name: 'portability_messages_ref_index', properties: ['organizationId', 'livemode', 'requestRef'] },
  ],
});
export type PortabilityMessage = InferEntity<typeof PortabilityMessage>;
