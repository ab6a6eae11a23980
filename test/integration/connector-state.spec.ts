/**
 * The connectors' durable state (SDK 2.5 `host.state`) on PostgreSQL: the connector-state service
 * with its table, reached through the port the host builds for a connector (connectorStatePort) on
 * one broker and on a second broker with the same database (two replicas). Compare-and-set: create
 * only when absent, write only at the version read, delete at a version; writers that conflict lose
 * and retry, and nothing is lost (every increment of a shared counter counts once); the size cap and
 * the key form fail clearly, before and behind the port; one connector never sees another's keys.
 */
import { ServiceBroker } from 'moleculer';
import { startTestApp, type TestApp } from '../support/app.ts';
import { connectorStatePort } from '../../services/connectors/host.ts';
import ConnectorStateService from '../../services/connectors/connector-state.service.ts';
import { attachDatabase } from '../../services/shared/persistence/database.ts';
import { ConnectorError, STATE_VALUE_MAX_BYTES, type ConnectorState } from '../../adapters/sdk/index.ts';

let app: TestApp;
let replica: ServiceBroker;
beforeAll(async () => {
  app = await startTestApp({ services: ['connector-state'] });
  // A second replica of the service: its own broker, the same database.
  replica = new ServiceBroker({ logger: false, nodeID: 'connector-state-replica' });
  attachDatabase(replica, app.app.orm!);
  replica.createService(ConnectorStateService);
  await replica.start();
});
afterAll(async () => {
  await replica?.stop();
  await app?.stop();
});

const port = (connectorId: string, broker: ServiceBroker = app.app.broker): ConnectorState => connectorStatePort(broker, connectorId);

describe('connector state on PostgreSQL', () => {
  it('compare-and-set: creates only what is absent, writes only at the version read, deletes at a version', async () => {
    const s = port('acme-net');
    expect(await s.get('k1')).toBeNull();
    expect(await s.compareAndSet('k1', null, { n: 1, text: 'مرحبا' })).toBe(true);
    expect(await s.compareAndSet('k1', null, { n: 99 })).toBe(false);
    expect(await s.get('k1')).toEqual({ value: { n: 1, text: 'مرحبا' }, version: 1 });
    expect(await s.compareAndSet('k1', 2, { n: 99 })).toBe(false);
    expect(await s.compareAndSet('k1', 1, { n: 2 })).toBe(true);
    expect(await s.compareAndSet('k1', 1, { n: 3 })).toBe(false);
    expect(await s.get('k1')).toEqual({ value: { n: 2 }, version: 2 });
    // JSON values of every kind come back as written.
    for (const [i, v] of [[1, 'text'], [2, 42], [3, [1, { a: null }]], [4, true], [5, null]] as const) {
      expect(await s.compareAndSet(`kind/${i}`, null, v)).toBe(true);
      expect((await s.get(`kind/${i}`))!.value).toEqual(v);
    }
    expect(await s.delete('k1', 1)).toBe(false);
    expect(await s.delete('k1', 2)).toBe(true);
    expect(await s.get('k1')).toBeNull();
    expect(await s.delete('k1', 2)).toBe(false);
    // Created again, it starts from version 1.
    expect(await s.compareAndSet('k1', null, 'again')).toBe(true);
    expect(await s.get('k1')).toEqual({ value: 'again', version: 1 });
  });

  it('conflicting writers on two replicas: each lost compare-and-set re-reads and retries, no increment is lost', async () => {
    const writers = [port('acme-net'), port('acme-net', replica)];
    let lost = 0;
    const increment = async (s: ConnectorState) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const e = await s.get<number>('counter');
        if (await s.compareAndSet('counter', e?.version ?? null, (e?.value ?? 0) + 1)) return;
        lost++;
      }
      throw new Error('never won');
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => increment(writers[i % 2]!)));
    expect(await writers[1]!.get('counter')).toEqual({ value: 40, version: 40 });
    // They did conflict (all 40 read before any wrote): the retries are what kept the count.
    expect(lost).toBeGreaterThan(0);
  });

  it('a value over the cap or a bad key fails clearly, at the port and behind it', async () => {
    const s = port('acme-net');
    const big = 'x'.repeat(STATE_VALUE_MAX_BYTES);
    const err = await s.compareAndSet('big', null, big).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ kind: 'permanent', code: 'STATE_VALUE_TOO_LARGE', message: expect.stringContaining(`more than the ${STATE_VALUE_MAX_BYTES}`) });
    // Just under the cap is kept.
    const fits = 'y'.repeat(STATE_VALUE_MAX_BYTES - 2);
    expect(await s.compareAndSet('fits', null, fits)).toBe(true);
    expect((await s.get<string>('fits'))!.value).toHaveLength(STATE_VALUE_MAX_BYTES - 2);
    // Multi-byte text counts in bytes.
    await expect(s.compareAndSet('big', null, 'é'.repeat(STATE_VALUE_MAX_BYTES / 2))).rejects.toMatchObject({ code: 'STATE_VALUE_TOO_LARGE' });
    await expect(s.compareAndSet('big', null, undefined)).rejects.toMatchObject({ code: 'STATE_VALUE_INVALID' });
    for (const key of ['', 'with space', 'k'.repeat(201), 'ünïcode']) {
      await expect(s.get(key)).rejects.toMatchObject({ code: 'STATE_KEY_INVALID' });
      await expect(s.compareAndSet(key, null, 1)).rejects.toMatchObject({ code: 'STATE_KEY_INVALID' });
    }
    // Behind the port, the service refuses what a caller skipping the host's checks sends.
    const raw = { connectorId: 'acme-net', key: 'big', expectedVersion: null, valueJson: JSON.stringify('é'.repeat(STATE_VALUE_MAX_BYTES / 2)) };
    await expect(app.app.broker.call('connector-state.compareAndSet', raw)).rejects.toMatchObject({ code: 422, type: 'STATE_VALUE_TOO_LARGE' });
    await expect(app.app.broker.call('connector-state.compareAndSet', { ...raw, valueJson: '"x"', connectorId: '../other' })).rejects.toMatchObject({ type: 'VALIDATION_ERROR' });
    expect(await s.get('big')).toBeNull();
  });

  it('one connector never reads or writes another\'s keys', async () => {
    const a = port('ns-a');
    const b = port('ns-b');
    expect(await a.compareAndSet('shared-name', null, 'of a')).toBe(true);
    expect(await b.get('shared-name')).toBeNull();
    // b's writes land in b's namespace: a's value and version are untouched.
    expect(await b.compareAndSet('shared-name', 1, 'b overwrites?')).toBe(false);
    expect(await b.compareAndSet('shared-name', null, 'of b')).toBe(true);
    expect(await b.delete('shared-name', 1)).toBe(true);
    expect(await a.get('shared-name')).toEqual({ value: 'of a', version: 1 });
    // The same connector on another replica sees its own keys.
    expect(await port('ns-a', replica).get('shared-name')).toEqual({ value: 'of a', version: 1 });
  });
});
