/**
 * vies: the EU VAT Information Exchange System as a company registry. `lookupCompany` asks the
 * VIES REST service (`POST <baseUrl>/check-vat-number`) whether a VAT number is valid and, where
 * the member state discloses them, its name and address. VIES cannot tell a ceased company from an
 * unknown number: both are `not_found`. A member state that is down (`MS_UNAVAILABLE`, timeouts,
 * 5xx) is a transient failure: the platform keeps the company pending and asks again later.
 * Written against adapters/sdk only.
 */
import { CONNECTOR_API_VERSION, ConnectorError, type Connector, type ConnectorHost, type RegisteredCompany, type RegistryRequest, type RegistryResult } from '../sdk/index.ts';

/** EU member states (VIES prefixes; Greece is EL) and Northern Ireland. */
const VIES_PREFIXES = ['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'EL', 'ES', 'FI', 'FR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'XI'] as const;

/** VIES `userError` values that mean "ask again later". */
const TRANSIENT_ERRORS = new Set(['MS_UNAVAILABLE', 'TIMEOUT', 'SERVICE_UNAVAILABLE', 'MS_MAX_CONCURRENT_REQ', 'GLOBAL_MAX_CONCURRENT_REQ', 'GLOBAL_MAX_CONCURRENT_REQ_TIME', 'MS_MAX_CONCURRENT_REQ_TIME']);

interface ViesAnswer {
  valid?: boolean;
  name?: string;
  address?: string;
  userError?: string;
}

/** VIES shows "---" for what a member state does not disclose. */
const disclosed = (value: string | undefined): string | undefined => {
  const v = value?.trim();
  return v && v !== '---' ? v : undefined;
};

/** VIES gives the address as lines; the last one usually holds postcode and city. */
function addressOf(text: string | undefined, country: string): NonNullable<RegisteredCompany['address']> {
  const lines = (disclosed(text) ?? '').split(/\n+/).map((l) => l.trim()).filter(Boolean);
  if (!lines.length) return { country };
  const last = lines.length > 1 ? lines[lines.length - 1]! : '';
  const m = /^(\S*\d\S*)\s+(.+)$/.exec(last);
  return {
    street: lines[0],
    ...(lines.length > 2 ? { streetLine2: lines.slice(1, -1).join(', ') } : {}),
    ...(m ? { postalCode: m[1], city: m[2] } : last ? { city: last } : {}),
    country,
  };
}

const vies = {
  manifest: {
    id: 'vies',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'VIES company registry',
    description: 'Checks EU VAT numbers against the European Commission VIES service (name and address where disclosed)',
    modes: ['live', 'test'],
    countries: VIES_PREFIXES.map((p) => (p === 'EL' ? 'GR' : p === 'XI' ? 'GB' : p)),
    documentTypes: ['invoice'],
    capabilities: { send: false, pushReceive: false, pollReceive: false, status: false, report: false, discover: false, registry: true },
    options: {
      baseUrl: { type: 'string', description: 'VIES REST base URL', default: 'https://ec.europa.eu/taxation_customs/vies/rest-api' },
      timeoutMs: { type: 'number', description: 'Time allowed for one VIES answer', default: 10000 },
    },
  },

  async lookupCompany(req: RegistryRequest, host: ConnectorHost): Promise<RegistryResult> {
    const prefix = req.vatNumber.slice(0, 2);
    if (!(VIES_PREFIXES as readonly string[]).includes(prefix)) return { status: 'not_found' };
    const res = await host.http.request(`${String(host.config.baseUrl).replace(/\/$/, '')}/check-vat-number`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ countryCode: prefix, vatNumber: req.vatNumber.slice(2) }),
      timeoutMs: Number(host.config.timeoutMs ?? 10_000),
    });
    if (res.status >= 500 || res.status === 429) throw ConnectorError.transient(`VIES_HTTP_${res.status}`, `VIES answered ${res.status}`);
    let answer: ViesAnswer;
    try {
      answer = JSON.parse(res.text()) as ViesAnswer;
    } catch {
      throw ConnectorError.transient('VIES_BAD_ANSWER', `VIES answered ${res.status} with a body that is not JSON`);
    }
    if (answer.userError && TRANSIENT_ERRORS.has(answer.userError)) throw ConnectorError.transient(`VIES_${answer.userError}`, `VIES cannot check ${prefix} numbers now (${answer.userError})`);
    if (res.status >= 400) throw ConnectorError.transient(`VIES_HTTP_${res.status}`, `VIES refused the question (${res.status}${answer.userError ? `, ${answer.userError}` : ''})`);
    if (answer.valid !== true) return { status: 'not_found' };
    const country = prefix === 'EL' ? 'GR' : prefix === 'XI' ? 'GB' : prefix;
    return { status: 'active', name: disclosed(answer.name) ?? req.vatNumber, address: addressOf(answer.address, country) };
  },
} satisfies Connector;

export default vies;
