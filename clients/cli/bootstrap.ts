/**
 * `einv bootstrap`: a sandbox organization and its test key, with no sign-up. The key is saved to
 * the config file (mode 0600) so the other commands find it, or printed with `--print` (for a CI
 * secret store), never both: a key printed to a terminal lingers in scrollback and logs.
 */
import { createExchangeClient } from '../typescript/src/index.ts';
import { writeConfig } from './config.ts';
import { describeApiError, UsageError, type CliContext } from './context.ts';

export interface BootstrapOptions { label?: string; email?: string; print?: boolean }

export async function bootstrapCommand(ctx: CliContext, options: BootstrapOptions): Promise<void> {
  // No credential yet: the call is public (rate-limited per IP).
  const anonymous: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.delete('authorization');
    return fetch(request);
  };
  const api = createExchangeClient({ baseUrl: ctx.baseUrl, apiKey: 'none', fetch: anonymous });
  const { data, error, response } = await api.POST('/v1/sandbox/bootstrap', {
    body: { ...(options.label ? { label: options.label } : {}), ...(options.email ? { email: options.email } : {}) },
  });
  if (!data) throw new UsageError(`bootstrap failed: ${describeApiError(error, response.status)}`);
  if (options.print) {
    process.stdout.write(`${data.apiKey}\n`);
    return;
  }
  writeConfig(ctx.configFile, { ...ctx.config, baseUrl: ctx.baseUrl, apiKey: data.apiKey, organizationId: data.organizationId, companyId: data.company.id, ...(data.company.peppolId ? { peppolId: data.company.peppolId } : {}) });
  process.stdout.write(`Sandbox organization ${data.organizationId}, company ${data.company.name ?? data.company.id} (${data.company.peppolId}).\n`
    + `Test key saved to ${ctx.configFile} (mode 0600); it expires ${data.expiresAt}.\n`);
}
