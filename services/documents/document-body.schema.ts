/**
 * JSON Schemas of the free-form parts of the documents contract, for the OpenAPI document (the
 * send's `document` itself is described beside its mapping, mappings/json/document-schema.ts).
 */
import type { JsonSchema } from '../shared/contract.ts';

const text = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });

export const SEND_METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Free key/values kept with the document; `recipientRouting` addresses a French reception point',
  properties: {
    recipientRouting: {
      type: 'object',
      properties: { addressingIdentifier: text('SIREN or SIRET of the reception point'), addressingSuffix: text('Routing suffix of the French addressing rules') },
    },
  },
  additionalProperties: true,
};

/** The recipient as a document shows it (what `to` resolved to). */
export const RECIPIENT_ECHO_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Recipient echo',
  properties: {
    peppolId: { type: 'string' }, companyId: { type: 'string' }, addressingIdentifier: { type: 'string' }, addressingSuffix: { type: 'string' }, name: { type: 'string' },
  },
};

export const NOTE_SCHEMA: JsonSchema = {
  type: 'object', required: ['id', 'text', 'at'],
  properties: { id: { type: 'string' }, text: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
};

/** What became of a lifecycle step's follow-up beyond the platform. */
const FOLLOW_UP_SCHEMA: JsonSchema = {
  type: 'object', required: ['via', 'status', 'at', 'attempts'],
  properties: {
    via: { type: 'string', description: 'The connector that carried it' },
    status: { type: 'string', enum: ['sent', 'reported', 'unsupported', 'disabled', 'failed'], description: '`unsupported`: the other side takes no such message; nothing was sent. `disabled`: the organization turned automatic reporting off for the country (platform settings `defaults.autoCompliance`); nothing was filed' },
    at: { type: 'string', format: 'date-time' }, attempts: { type: 'integer', minimum: 1 },
    messageId: { type: 'string', description: 'The network\'s id of what was sent, or the tax platform\'s reference of the report' },
    errorCode: { type: 'string' }, message: { type: 'string' },
  },
};

export const LIFECYCLE_ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code', 'label', 'status', 'emittedBy', 'at'],
  properties: {
    code: { type: 'string', description: 'French lifecycle code 200–213' }, label: { type: 'string' }, status: { type: 'string', description: 'API status after this step' },
    emittedBy: { type: 'string', enum: ['seller_platform', 'buyer_platform', 'buyer', 'supplier', 'platform'] }, at: { type: 'string', format: 'date-time' },
    reason: { type: 'string' }, reasonCode: { type: 'string' }, note: { type: 'string' }, partial: { type: 'boolean' },
    amounts: { type: 'object', additionalProperties: { type: 'string' }, description: 'MAP, MNA, MAPTTC, MNATTC, MEN … of approvals and payments' },
    paymentDate: { type: 'string', format: 'date' }, paymentReference: { type: 'string' }, paymentCurrency: { type: 'string' }, relatedDocumentId: { type: 'string' },
    via: { type: 'string', description: 'The other party\'s answer came over the network through this connector (a Peppol Invoice Response, an SDI esito)' },
    response: { ...FOLLOW_UP_SCHEMA, description: 'The buyer\'s answer passed back to the sender over the network it came by (a Peppol Invoice Response)' },
    report: { ...FOLLOW_UP_SCHEMA, description: 'This status reported to the tax platform (France: a CDAR to the PPF); compliance.reported says the same' },
  },
};

const LEAF_OPERATORS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$contains', '$notContains', '$in', '$notIn', '$null', '$notNull'];

/** The search predicate tree: `$and` / `$or` nest to any depth; a field takes a scalar ($eq), an array ($in) or operators. */
export const SEARCH_FILTER_SCHEMA: JsonSchema = {
  type: 'object',
  description: `A predicate tree. Combinators: \`$and\`, \`$or\` (arrays of trees). A field takes a scalar (\`$eq\`), an array (\`$in\`) or an object of operators: ${LEAF_OPERATORS.map((o) => `\`${o}\``).join(', ')}`,
  properties: {
    $and: { type: 'array', items: { $ref: '#/components/schemas/SearchFilter' } },
    $or: { type: 'array', items: { $ref: '#/components/schemas/SearchFilter' } },
  },
  additionalProperties: {
    oneOf: [
      { type: ['string', 'number', 'boolean', 'null'] },
      { type: 'array', items: { type: ['string', 'number'] } },
      { type: 'object', properties: Object.fromEntries(LEAF_OPERATORS.map((o) => [o, {}])), additionalProperties: false },
    ],
  },
};
