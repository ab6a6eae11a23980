/**
 * Finds the enabled connectors (services/shared/connector-settings.ts) and loads each one's folder:
 * `adapters/<id>/`, else `<dir>/<id>/` for each EINV_CONNECTORS_PATH folder, else the `module` its
 * settings name. The folder's package.json `main` (or `index.ts`) default-exports the Connector.
 * Nothing else in the platform names a connector: this is how one is added.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServiceSchema } from 'moleculer';
import type { Connector } from '../../adapters/sdk/index.ts';
import { loadConfig } from '../shared/config.ts';
import { connectorSettings, enabledConnectorIds } from '../shared/connector-settings.ts';
import { connectorService } from './connector-service.ts';

const ADAPTERS_DIR = fileURLToPath(new URL('../../adapters/', import.meta.url));

function entryOf(location: string): string | undefined {
  if (!existsSync(location)) return undefined;
  if (statSync(location).isFile()) return location;
  const pkg = join(location, 'package.json');
  if (existsSync(pkg)) {
    const main = (JSON.parse(readFileSync(pkg, 'utf8')) as { main?: string }).main;
    if (main && existsSync(join(location, main))) return join(location, main);
  }
  return existsSync(join(location, 'index.ts')) ? join(location, 'index.ts') : undefined;
}

export function locateConnector(id: string): string {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id) || id === 'sdk' || id.endsWith('-kit')) throw new Error(`EINV_CONNECTORS: "${id}" is not a connector id`);
  const settings = connectorSettings(id);
  const candidates = settings.module
    ? [isAbsolute(settings.module) ? settings.module : resolve(settings.module)]
    : [join(ADAPTERS_DIR, id), ...loadConfig().connectors.path.map((dir) => resolve(dir, id))];
  for (const c of candidates) {
    const entry = entryOf(c);
    if (entry) return entry;
  }
  throw new Error(`connector ${id} is enabled but not found (looked in ${candidates.join(', ')})`);
}

export async function loadConnector(id: string): Promise<Connector> {
  const mod = await import(pathToFileURL(locateConnector(id)).href) as { default?: Connector };
  const connector = mod.default;
  if (!connector?.manifest) throw new Error(`connector ${id}: its entry file must default-export a Connector`);
  if (connector.manifest.id !== id) throw new Error(`connector ${id}: its manifest says id "${connector.manifest.id}"`);
  return connector;
}

/** `adapter.<id>` service schemas of every enabled connector, by service name. */
export async function connectorServices(): Promise<Array<[string, ServiceSchema]>> {
  const out: Array<[string, ServiceSchema]> = [];
  for (const id of enabledConnectorIds()) out.push([`adapter.${id}`, connectorService(await loadConnector(id), connectorSettings(id))]);
  return out;
}
