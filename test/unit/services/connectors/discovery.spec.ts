/**
 * Connector discovery from configuration: which connectors are enabled (EINV_CONNECTORS, the
 * connectors file, the default), where their folders are found, and the errors an operator sees.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectorSettings, enabledConnectorIds } from '../../../../services/shared/connector-settings.ts';
import { connectorServices, loadConnector, locateConnector } from '../../../../services/connectors/discovery.ts';

const dir = mkdtempSync(join(tmpdir(), 'discovery-'));
const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('runs the sandbox network when nothing is configured, else what EINV_CONNECTORS lists', () => {
  delete process.env.EINV_CONNECTORS;
  delete process.env.EINV_CONNECTORS_FILE;
  expect(enabledConnectorIds()).toEqual(['sandbox-network']);
  process.env.EINV_CONNECTORS = 'file-drop, sandbox-network,file-drop';
  expect(enabledConnectorIds()).toEqual(['file-drop', 'sandbox-network']);
});

it('a connectors file enables its entries and gives options and concurrency; the env wins', () => {
  const file = join(dir, 'connectors.json');
  writeFileSync(file, JSON.stringify({ 'file-drop': { concurrency: 3, options: { outboxDir: '/x' } }, 'sandbox-network': { enabled: false } }));
  delete process.env.EINV_CONNECTORS;
  process.env.EINV_CONNECTORS_FILE = file;
  expect(enabledConnectorIds()).toEqual(['file-drop']);
  expect(connectorSettings('file-drop')).toMatchObject({ id: 'file-drop', concurrency: 3, options: { outboxDir: '/x' } });
  process.env.EINV_CONNECTOR_FILE_DROP_CONCURRENCY = '7';
  expect(connectorSettings('file-drop').concurrency).toBe(7);
  process.env.EINV_DELIVERY_CONCURRENCY = '5';
  expect(connectorSettings('sandbox-network').concurrency).toBe(5);
});

it('finds a connector in adapters/, on EINV_CONNECTORS_PATH, or where its settings point; says where it looked when it is nowhere', async () => {
  expect(locateConnector('file-drop')).toMatch(/adapters\/file-drop\/file-drop\.connector\.ts$/);
  mkdirSync(join(dir, 'acme-net'));
  writeFileSync(join(dir, 'acme-net', 'index.ts'), `export default { manifest: { id: 'not-acme' } };`);
  process.env.EINV_CONNECTORS_PATH = dir;
  expect(locateConnector('acme-net')).toBe(join(dir, 'acme-net', 'index.ts'));
  await expect(loadConnector('acme-net')).rejects.toThrow(/manifest says id "not-acme"/);
  expect(() => locateConnector('nowhere')).toThrow(/connector nowhere is enabled but not found \(looked in .*adapters\/nowhere/);
  expect(() => locateConnector('../etc')).toThrow(/is not a connector id/);
  expect(() => locateConnector('sdk')).toThrow(/is not a connector id/);
});

it('creates one adapter.<id> service per enabled connector, with its manifest in the service metadata', async () => {
  process.env.EINV_CONNECTORS = 'sandbox-network,file-drop';
  const services = await connectorServices();
  expect(services.map(([name]) => name)).toEqual(['adapter.sandbox-network', 'adapter.file-drop']);
  expect(services[1]![1].metadata).toMatchObject({ connector: { id: 'file-drop', modes: ['test', 'live'] } });
});
