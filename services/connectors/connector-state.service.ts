/**
 * connector-state: keeps the connectors' durable state (SDK 2.5 `host.state`) in `connector_state`,
 * one row per (connector, key) with a version that every write bumps. Compare-and-set is one
 * conditional statement (an insert that yields to an existing row, an update or delete guarded by
 * the version), so no transaction is ever held open: a connector writes, then calls its network.
 */
import type { ServiceSchema } from 'moleculer';
import { Errors } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { STATE_VALUE_MAX_BYTES } from '../../adapters/sdk/index.ts';
import { compareAndSetState, deleteState, getState } from './connector-state.contract.ts';

const ConnectorStateService: ServiceSchema = {
  name: 'connector-state',
  mixins: [OrmMixin],
  actions: {
    get: implement(getState, async (ctx) => {
      const rows = await emOf(ctx).execute<Array<{ value: string; version: string | number }>>(
        'select value::text as value, version from connector_state where connector_id = ? and key = ?', [ctx.params.connectorId, ctx.params.key]);
      const row = rows[0];
      return row ? { valueJson: row.value, version: Number(row.version) } : null;
    }),

    compareAndSet: implement(compareAndSetState, async (ctx) => {
      const { connectorId, key, expectedVersion, valueJson } = ctx.params;
      // The host checked the size already; this guards the table against any other caller.
      if (Buffer.byteLength(valueJson) > STATE_VALUE_MAX_BYTES) throw new Errors.MoleculerClientError(`state key "${key}": the value is more than ${STATE_VALUE_MAX_BYTES} bytes`, 422, 'STATE_VALUE_TOO_LARGE');
      const em = emOf(ctx);
      if (expectedVersion === null) {
        const rows = await em.execute<Array<{ version: string }>>(
          `insert into connector_state (connector_id, key, value, version, updated_at) values (?, ?, ?::jsonb, 1, now())
           on conflict (connector_id, key) do nothing returning version`, [connectorId, key, valueJson]);
        return { written: rows.length === 1 };
      }
      const res = await em.execute<{ affectedRows?: number }>(
        'update connector_state set value = ?::jsonb, version = version + 1, updated_at = now() where connector_id = ? and key = ? and version = ?',
        [valueJson, connectorId, key, expectedVersion], 'run');
      return { written: (res.affectedRows ?? 0) === 1 };
    }),

    delete: implement(deleteState, async (ctx) => {
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        'delete from connector_state where connector_id = ? and key = ? and version = ?', [ctx.params.connectorId, ctx.params.key, ctx.params.expectedVersion], 'run');
      return { deleted: (res.affectedRows ?? 0) === 1 };
    }),
  },
};

export default ConnectorStateService;
