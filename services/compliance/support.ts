/**
 * What this deployment does for a country's mandate, derived per request from the connectors the
 * broker knows (their manifests) and the rule packs the validation service ships. Pure: the service
 * gathers both and hands them in.
 *
 * A model is met by:
 * - `peppol`: a sending connector of the caller's mode on the Peppol network that reaches the
 *   country (`network: 'peppol'`). In test mode a test-only sending connector without a network of
 *   its own (the sandbox network) stands in for it: met, `simulated`;
 * - `post-audit`: any sending connector that reaches the country (any channel will do);
 * - `clearance`: a national connector (the manifest names the country, not `*`) that sends;
 * - `reporting`: a national connector that reports (`report` capability);
 * - `none`: nothing to meet.
 */
import type { ConnectorManifest } from '../../adapters/sdk/index.ts';
import type { Mandate, MandateModel } from './mandates.ts';

export type ConnectorRole = 'send' | 'receive' | 'status' | 'report' | 'discover' | 'registry';
export type Coverage = 'full' | 'partial' | 'none' | 'not_required';

export interface RulePackRef { id: string; version: string; title: string }

export interface CountrySupport {
  coverage: Coverage;
  models: Array<{ model: MandateModel; supported: boolean; simulated: boolean; connectors: string[] }>;
  connectors: Array<{ id: string; name: string; national: boolean; network: string | null; roles: ConnectorRole[] }>;
  formats: Array<{ id: string; rulePacks: string[] }>;
  gaps: string[];
}

function rolesOf(m: ConnectorManifest): ConnectorRole[] {
  const c = m.capabilities;
  const roles: ConnectorRole[] = [];
  if (c.send) roles.push('send');
  if (c.pushReceive || c.pollReceive) roles.push('receive');
  if (c.status) roles.push('status');
  if (c.report) roles.push('report');
  if (c.discover) roles.push('discover');
  if (c.registry) roles.push('registry');
  return roles;
}

const isNational = (m: ConnectorManifest, country: string) => m.countries.includes(country);
const reaches = (m: ConnectorManifest, country: string) => isNational(m, country) || m.countries.includes('*');
const standIn = (m: ConnectorManifest) => m.modes.length === 1 && m.modes[0] === 'test' && !m.network;

function platformNames(mandate: Mandate, kind: 'tax-platform'): string {
  const names = mandate.platforms.filter((p) => p.kind === kind).map((p) => p.name);
  return names.length ? names.join(' / ') : 'the national platform';
}

function gapFor(model: MandateModel, mandate: Mandate, mode: 'live' | 'test'): string {
  switch (model) {
    case 'peppol': return `No Peppol access point serves ${mode} documents on this deployment (connector with network "peppol", e.g. peppol-as4)`;
    case 'post-audit': return `No connector delivers ${mode} documents to ${mandate.name}`;
    case 'clearance': return `No connector clears ${mandate.name} invoices through ${platformNames(mandate, 'tax-platform')} for ${mode} documents`;
    case 'reporting': return `No connector reports ${mandate.name} invoice data to ${platformNames(mandate, 'tax-platform')} for ${mode} documents`;
    case 'none': return '';
  }
}

/**
 * @param manifests the connectors the broker knows
 * @param packsByFormat format id → the rule packs (`id@version`) a document of that format runs
 */
export function countrySupport(mandate: Mandate, manifests: readonly ConnectorManifest[], mode: 'live' | 'test', packsByFormat: ReadonlyMap<string, readonly RulePackRef[]>): CountrySupport {
  const { country } = mandate;
  const serving = manifests.filter((m) => m.modes.includes(mode) && reaches(m, country))
    .map((m) => ({ manifest: m, roles: rolesOf(m) }))
    .filter((c) => c.roles.length > 0);
  const senders = serving.filter((c) => c.roles.includes('send')).map((c) => c.manifest);

  const models = mandate.models.map((model) => {
    let met: ConnectorManifest[] = [];
    let simulated = false;
    switch (model) {
      case 'peppol':
        met = senders.filter((m) => m.network === 'peppol');
        if (!met.length && mode === 'test') {
          met = senders.filter(standIn);
          simulated = met.length > 0;
        }
        break;
      case 'post-audit': met = senders; break;
      case 'clearance': met = senders.filter((m) => isNational(m, country)); break;
      // A national report connector, or a national clearance connector: its send takes the real-time
      // report of what is not cleared (ZATCA's simplified invoices, API 2.4 `clearance`).
      case 'reporting': met = serving.filter((c) => (c.roles.includes('report') || c.manifest.capabilities.clearance) && isNational(c.manifest, country)).map((c) => c.manifest); break;
      case 'none': break;
    }
    return { model, supported: model === 'none' || met.length > 0, simulated, connectors: met.map((m) => m.id) };
  });

  const required = models.filter((m) => m.model !== 'none');
  const met = required.filter((m) => m.supported).length;
  const coverage: Coverage = required.length === 0 ? 'not_required' : met === required.length ? 'full' : met > 0 ? 'partial' : 'none';

  return {
    coverage,
    models,
    connectors: serving.map(({ manifest, roles }) => ({ id: manifest.id, name: manifest.name, national: isNational(manifest, country), network: manifest.network ?? null, roles })),
    formats: mandate.formats.map((f) => ({ id: f.id, rulePacks: (packsByFormat.get(f.id) ?? []).map((p) => `${p.id}@${p.version}`) })),
    gaps: required.filter((m) => !m.supported).map((m) => gapFor(m.model, mandate, mode)),
  };
}
