/**
 * The French change-of-platform (portability) vocabulary: the internal request states, the
 * three-letter wire codes the subject and the CSV carry, the message types and the two roles a
 * platform plays. One table, read both ways, so a state never has two codes.
 *
 * The wire strings are a working model pending an official annex (spec "Portability"): callers join
 * on their own `requestRef`, never on these strings.
 */
import { MappingError } from '../errors.ts';

/** Internal states of a portability request (spec "Portability request states"). */
export const PORTABILITY_STATES = ['received', 'acknowledged', 'accepted', 'rejected', 'auto_accepted', 'executing', 'completed', 'failed'] as const;
export type PortabilityState = (typeof PORTABILITY_STATES)[number];

/** State → wire code, exactly the spec's table. */
export const STATUS_CODE_BY_STATE: Readonly<Record<PortabilityState, PortabilityStatusCode>> = {
  received: 'REQ', acknowledged: 'ACK', accepted: 'ACC', rejected: 'REJ', auto_accepted: 'TAC', executing: 'MIG', completed: 'CMP', failed: 'ERR',
};

export const PORTABILITY_STATUS_CODES = ['REQ', 'ACK', 'ACC', 'REJ', 'TAC', 'MIG', 'CMP', 'ERR'] as const;
export type PortabilityStatusCode = (typeof PORTABILITY_STATUS_CODES)[number];

/** Wire code → state: the inverse of STATUS_CODE_BY_STATE. */
export const STATE_BY_STATUS_CODE: Readonly<Record<PortabilityStatusCode, PortabilityState>> = Object.fromEntries(
  PORTABILITY_STATES.map((state) => [STATUS_CODE_BY_STATE[state], state]),
) as Record<PortabilityStatusCode, PortabilityState>;

/** What a message is about: the request itself, its receipt, the decision, the completion of the switch. */
export const PORTABILITY_MESSAGE_TYPES = ['REQUEST', 'ACK', 'DECISION', 'COMPLETION'] as const;
export type PortabilityMessageType = (typeof PORTABILITY_MESSAGE_TYPES)[number];

/** The sender's side of the switch: the platform the taxpayer moves to, or the one it leaves. */
export const DIRECTION_ROLES = ['GAINING_PA', 'LOSING_PA'] as const;
export type DirectionRole = (typeof DIRECTION_ROLES)[number];

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value);

/** The wire code of a state; 400 INVALID_ENUM for a state the table does not know. */
export function statusCodeOf(state: string, field = 'state'): PortabilityStatusCode {
  if (!isOneOf(PORTABILITY_STATES, state)) {
    throw new MappingError('INVALID_ENUM', `Unknown portability state "${state}" (one of ${PORTABILITY_STATES.join(', ')})`, [{ field, rule: 'enum', message: `one of ${PORTABILITY_STATES.join(', ')}` }]);
  }
  return STATUS_CODE_BY_STATE[state];
}

/** The state a wire code stands for; 400 INVALID_ENUM for an unknown code. */
export function stateOfStatusCode(code: string, field = 'statusCode'): PortabilityState {
  if (!isOneOf(PORTABILITY_STATUS_CODES, code)) {
    throw new MappingError('INVALID_ENUM', `Unknown portability status code "${code}" (one of ${PORTABILITY_STATUS_CODES.join(', ')})`, [{ field, rule: 'enum', message: `one of ${PORTABILITY_STATUS_CODES.join(', ')}` }]);
  }
  return STATE_BY_STATUS_CODE[code];
}

/** The message type, checked; 400 INVALID_ENUM otherwise. */
export function messageTypeOf(value: string, field = 'messageType'): PortabilityMessageType {
  if (!isOneOf(PORTABILITY_MESSAGE_TYPES, value)) {
    throw new MappingError('INVALID_ENUM', `Unknown portability message type "${value}" (one of ${PORTABILITY_MESSAGE_TYPES.join(', ')})`, [{ field, rule: 'enum', message: `one of ${PORTABILITY_MESSAGE_TYPES.join(', ')}` }]);
  }
  return value;
}
