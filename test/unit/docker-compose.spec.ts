/**
 * docker-compose.yml kept in step with the code, since no container engine runs the suite: every
 * role of services/index.ts runs in some container, no container names an unknown one, every
 * variable an application container sets is one the configuration reads, and the ports and health
 * checks point at what the processes actually serve (the gateway's port and readiness route, each
 * role's metrics endpoint, which Prometheus scrapes on every role).
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { SERVICE_CATALOGUE } from '../../services/index.ts';
import { HTTP_CONTRACTS } from '../../services/gateway/routes.ts';

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  profiles?: string[];
  healthcheck?: { test: string[] };
}

const root = new URL('../../', import.meta.url);
const compose = YAML.parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'), { merge: true }) as { services: Record<string, ComposeService>; configs: Record<string, { content: string }> };
/** Where the application reads its environment: the config, the broker's options, the entry point. */
const configSources = ['services/shared/config.ts', 'moleculer.config.ts', 'server.ts'].map((f) => readFileSync(new URL(f, root), 'utf8')).join('\n');

const appServices = Object.entries(compose.services).filter(([, s]) => s.image === 'einvoicing-exchange');
/** Long-running roles: application containers that run server.ts (not the one-shot migration). */
const roles = appServices.filter(([, s]) => !s.command);

it('runs every service of the catalogue in some role, and names no unknown one', () => {
  const placed = roles.flatMap(([, s]) => (s.environment?.SERVICES ?? '').split(',').map((n) => n.trim()).filter(Boolean));
  expect(placed.filter((n) => !(n in SERVICE_CATALOGUE))).toEqual([]);
  expect(Object.keys(SERVICE_CATALOGUE).filter((n) => !placed.includes(n))).toEqual([]);
  // One role per service: two roles running the same one would split its work without saying so.
  expect(placed.length).toBe(new Set(placed).size);
});

it('sets only variables the configuration reads', () => {
  for (const [name, service] of appServices) {
    for (const variable of Object.keys(service.environment ?? {})) {
      expect({ service: name, variable, read: new RegExp(`['"\`.]${variable}\\b`).test(configSources) }).toEqual({ service: name, variable, read: true });
    }
  }
});

it('publishes the gateway on its PORT with readiness as its health check; every role serves metrics, scraped by Prometheus', () => {
  const gateway = compose.services.gateway!;
  const port = gateway.environment!.PORT!;
  expect(gateway.ports).toEqual([`${port}:${port}`]);
  const readiness = gateway.healthcheck!.test.join(' ');
  expect(readiness).toContain(`http://127.0.0.1:${port}/health/readiness`);
  expect(HTTP_CONTRACTS.some((c) => c.http!.method === 'GET' && c.http!.path === '/health/readiness')).toBe(true);

  const scrape = YAML.parse(compose.configs.prometheus!.content) as { scrape_configs: Array<{ dns_sd_configs: Array<{ names: string[]; port: number }> }> };
  const targets = scrape.scrape_configs.flatMap((c) => c.dns_sd_configs);
  for (const [name, service] of roles) {
    const metricsPort = service.environment!.EINV_METRICS_PORT;
    expect({ name, metricsPort }).toEqual({ name, metricsPort: expect.stringMatching(/^\d+$/) });
    // Metrics stay on the compose network: never published on the host.
    expect((service.ports ?? []).some((p) => p.includes(metricsPort!))).toBe(false);
    expect(targets.some((t) => t.names.includes(name) && String(t.port) === metricsPort)).toBe(true);
    if (name !== 'gateway') expect(service.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(service.environment!.MOL_LOG_FORMAT).toBe('json');
  }
});

it('keeps the observability extras behind their profile', () => {
  for (const name of ['prometheus', 'jaeger']) expect(compose.services[name]!.profiles).toEqual(['observability']);
});
