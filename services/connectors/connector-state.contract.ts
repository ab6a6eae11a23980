/**
 * connector-state: the durable state port of the connector SDK (API 2.5, `host.state`), a small
 * key-value store per connector with compare-and-set. The table (`connector_state`) belongs to this
 * service; an `adapter.<id>` host calls these actions with its own connector id, so a connector never
 * names another's namespace, and an adapter replica needs no database of its own. Internal: no route.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { STATE_VALUE_MAX_BYTES } from '../../adapters/sdk/index.ts';

const SERVICE = 'connector-state';

const connectorId = { type: 'string', pattern: /^[a-z0-9]+(-[a-z0-9]+)*$/, max: 64 } as const;
const key = { type: 'string', pattern: /^[\x21-\x7e]{1,200}$/ } as const;
const version = { type: 'number', integer: true, min: 1 } as const;

export interface StateRow {
  /** The value as JSON text (what the connector wrote, parsed by the host). */
  valueJson: string;
  version: number;
}

export const getState = defineAction<{ connectorId: string; key: string }, StateRow | null>(SERVICE, 'get', {
  params: { ...STRICT_REMOVE, connectorId, key },
});

export const compareAndSetState = defineAction<{ connectorId: string; key: string; expectedVersion: number | null; valueJson: string }, { written: boolean }>(SERVICE, 'compareAndSet', {
  params: { ...STRICT_REMOVE, connectorId, key, expectedVersion: { ...version, nullable: true }, valueJson: { type: 'string', min: 1, max: STATE_VALUE_MAX_BYTES } },
});

export const deleteState = defineAction<{ connectorId: string; key: string; expectedVersion: number }, { deleted: boolean }>(SERVICE, 'delete', {
  params: { ...STRICT_REMOVE, connectorId, key, expectedVersion: version },
});
