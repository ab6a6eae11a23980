/**
 * Asks a company registry about a VAT number, through a connector with the `registry` capability
 * (adapters/sdk): one that names the VAT number's country first, else a `*` one, among those
 * serving the caller's mode. Called before any transaction opens. An unreachable, failing or
 * timed-out registry is an answer too (`unavailable`): the company is then kept pending and
 * checked again later, never refused for the registry's outage.
 */
import type { Context, ServiceBroker } from 'moleculer';
import type { ConnectorManifest, RegistryResult } from '../../adapters/sdk/index.ts';
import { call } from '../shared/call.ts';
import { adapterContracts, registeredManifests } from '../connectors/adapters.contract.ts';

export type RegistryAnswer =
  | { source: string; result: RegistryResult }
  | { source: string; unavailable: string }
  /** No registry serves this country in this mode: nothing to check against. */
  | { source: null };

const REGISTRY_TIMEOUT_MS = 15_000;

export function registryFor(manifests: readonly ConnectorManifest[], country: string, livemode: boolean): ConnectorManifest | undefined {
  const mode = livemode ? 'live' : 'test';
  return manifests
    .filter((m) => m.capabilities.registry && m.modes.includes(mode) && (m.countries.includes(country) || m.countries.includes('*')))
    .sort((a, b) => (a.countries.includes(country) ? 0 : 1) - (b.countries.includes(country) ? 0 : 1) || a.id.localeCompare(b.id))[0];
}

export async function askRegistry(caller: Context | ServiceBroker, vatNumber: string, country: string, livemode: boolean): Promise<RegistryAnswer> {
  const broker = 'broker' in caller ? caller.broker : caller;
  const registry = registryFor(registeredManifests(broker), country, livemode);
  if (!registry) return { source: null };
  try {
    const result = await call(caller, adapterContracts(registry.id).lookupCompany, { vatNumber, livemode }, { timeout: REGISTRY_TIMEOUT_MS, retries: 0 });
    return { source: registry.id, result };
  } catch (err) {
    return { source: registry.id, unavailable: (err as Error).message };
  }
}
