/**
 * The operator's onboarding command for one EGS unit (onboarding.ts does the work):
 *
 *   node adapters/sa-zatca/onboard-cli.ts --base-url <Fatoora base URL> --otp <portal OTP> \
 *     --out <directory> --vat 3xxxxxxxxxxxxx3 --name "<seller legal name>" --crn <commercial registration> \
 *     --common-name <EGS id> --serial "1-<solution>|2-<model>|3-<serial>" --unit "<branch>" \
 *     --location <address> --industry <industry> [--invoice-types 1100] [--template ZATCA-Code-Signing] \
 *     [--street .. --city .. --postal-code .. --key <existing PEM key>]
 *
 * It makes (or reads) the secp256k1 key, sends the CSR with the OTP, passes the compliance checks and
 * gets the production CSID, then writes into `--out` (mode 0600): `privateKey.pem`, `apiSecret`,
 * `binarySecurityToken` and `certificate.pem`, and prints the connector variables to set
 * (EINV_CONNECTOR_SA_ZATCA_*; the two secrets point at the files, never printed).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { HttpRequestOptions, HttpResponse } from '../sdk/index.ts';
import { newEgsKey, onboard } from './onboarding.ts';

const { values: a } = parseArgs({
  options: Object.fromEntries(['base-url', 'otp', 'out', 'vat', 'name', 'crn', 'common-name', 'serial', 'unit', 'location', 'industry', 'invoice-types', 'template', 'street', 'city', 'postal-code', 'key'].map((k) => [k, { type: 'string' as const }])),
});
const need = (k: string): string => {
  const v = a[k];
  if (typeof v !== 'string' || !v) { process.stderr.write(`--${k} is required\n`); process.exit(2); }
  return v;
};

/** The SDK's HTTP port over fetch, for a command run outside the platform. */
const http = {
  async request(url: string, o: HttpRequestOptions = {}): Promise<HttpResponse> {
    const res = await fetch(url, { method: o.method ?? 'GET', headers: o.headers ?? {}, ...(o.body !== undefined ? { body: typeof o.body === 'string' ? o.body : new Uint8Array(o.body) } : {}), signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: Object.fromEntries(res.headers), body, text: () => body.toString('utf8') };
  },
};

const out = need('out');
const privateKeyPem = typeof a.key === 'string' ? readFileSync(a.key, 'utf8') : newEgsKey();
const vat = need('vat');
const result = await onboard(http, {
  baseUrl: need('base-url'), otp: need('otp'), privateKeyPem,
  egs: {
    commonName: need('common-name'), serialNumber: need('serial'), organization: need('name'), organizationUnit: need('unit'), vatNumber: vat,
    invoiceTypes: typeof a['invoice-types'] === 'string' ? a['invoice-types'] : '1100', location: need('location'), industry: need('industry'),
    templateName: typeof a.template === 'string' ? a.template : 'ZATCA-Code-Signing',
  },
  seller: {
    name: need('name'), vatId: `SA${vat}`, legalRegistration: { value: need('crn') },
    address: { line1: String(a.street ?? need('location')), city: String(a.city ?? 'Riyadh'), postalCode: String(a['postal-code'] ?? '00000'), country: 'SA' },
  },
});
mkdirSync(out, { recursive: true, mode: 0o700 });
const write = (name: string, value: string) => writeFileSync(join(out, name), value, { mode: 0o600 });
write('privateKey.pem', privateKeyPem);
write('apiSecret', result.production.secret);
write('binarySecurityToken', result.production.binarySecurityToken);
write('certificate.pem', result.production.certificatePem);
process.stdout.write(`compliance checks: ${result.checks.map((c) => `${c.kind} ${c.type} ${c.status}`).join(', ')}\n`
  + `EINV_CONNECTOR_SA_ZATCA_BINARY_SECURITY_TOKEN=${result.production.binarySecurityToken}\n`
  + `# secrets: privateKey and apiSecret from ${out} (the connector's secretsFile or EINV_CONNECTOR_SA_ZATCA_PRIVATE_KEY / _API_SECRET)\n`);
