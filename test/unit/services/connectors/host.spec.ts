/**
 * The connector host's ports: options and secrets resolved from configuration (secrets never in
 * `config`, never printed, masked in logs), and the HTTP port against real servers on 127.0.0.1
 * (a timeout is a transient ConnectorError; mutual TLS presents the configured client certificate).
 */
import { createServer as createHttps } from 'node:https';
import { createServer as createHttp, type ServerResponse } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';
import type { ServiceBroker } from 'moleculer';
import { resolveConnectorConfig, createConnectorHost } from '../../../../services/connectors/host.ts';
import { createHttpClient } from '../../../../services/connectors/http-client.ts';
import { connectorEnvName } from '../../../../services/shared/connector-settings.ts';
import { ConnectorError, type ConnectorManifest } from '../../../../adapters/sdk/index.ts';

const manifest: ConnectorManifest = {
  id: 'acme-net', version: '1.0.0', apiVersion: '2.0', name: 'Acme', description: 'test', modes: ['test', 'live'], countries: ['*'], documentTypes: ['invoice'],
  capabilities: { send: false, pushReceive: false, pollReceive: false, status: false, report: false, discover: false },
  options: {
    baseUrl: { type: 'string', description: 'API', required: true },
    retries: { type: 'number', description: 'n', default: 3 },
    strict: { type: 'boolean', description: 'b', default: false },
    apiKey: { type: 'string', description: 'key', required: true, secret: true },
  },
};

describe('configuration and secrets', () => {
  it('names the variables after the connector and option', () => {
    expect(connectorEnvName('file-drop', 'outboxDir')).toBe('EINV_CONNECTOR_FILE_DROP_OUTBOX_DIR');
    expect(connectorEnvName('acme-net', 'secretsFile')).toBe('EINV_CONNECTOR_ACME_NET_SECRETS_FILE');
  });

  it('env wins over the file, defaults fill the rest, values are typed, and a secret never lands in config', () => {
    const { config, secrets } = resolveConnectorConfig(manifest, { id: 'acme-net', concurrency: 1, options: { baseUrl: 'https://file.example', retries: 5, apiKey: 'from-file' } },
      { EINV_CONNECTOR_ACME_NET_BASE_URL: 'https://env.example', EINV_CONNECTOR_ACME_NET_STRICT: 'true', EINV_CONNECTOR_ACME_NET_API_KEY: 'k-env-123' });
    expect(config).toEqual({ baseUrl: 'https://env.example', retries: 5, strict: true });
    expect(secrets.get('apiKey')).toBe('k-env-123');
  });

  it('reads secrets from a secrets file, and refuses to start without a required option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    try {
      writeFileSync(join(dir, 's.json'), JSON.stringify({ apiKey: 'k-file-456' }));
      const { secrets } = resolveConnectorConfig(manifest, { id: 'acme-net', concurrency: 1, secretsFile: join(dir, 's.json'), options: { baseUrl: 'x' } }, {});
      expect(secrets.get('apiKey')).toBe('k-file-456');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => resolveConnectorConfig(manifest, { id: 'acme-net', concurrency: 1 }, {})).toThrow(/baseUrl \(EINV_CONNECTOR_ACME_NET_BASE_URL\).*apiKey/);
    expect(() => resolveConnectorConfig(manifest, { id: 'acme-net', concurrency: 1, options: { baseUrl: 'x', apiKey: 'y', retries: 'many' } }, {})).toThrow(/retries must be a number/);
  });

  it('a Secret prints, serialises and inspects as [secret], and the host logger masks its value', async () => {
    const lines: string[] = [];
    const record = (m: unknown) => { lines.push(String(m)); };
    // Only the logger of the broker is used by the host here.
    const broker = { getLogger: () => ({ debug: record, info: record, warn: record, error: record }) } as unknown as ServiceBroker;
    const running = createConnectorHost(broker, manifest, { id: 'acme-net', concurrency: 1, options: { baseUrl: 'x', apiKey: 'super-secret-value' } });
    const secret = running.host.secrets.get('apiKey');
    expect(secret.reveal()).toBe('super-secret-value');
    expect(`${secret}`).toBe('[secret]');
    expect(JSON.stringify({ secret })).toBe('{"secret":"[secret]"}');
    expect(inspect(secret)).toBe('[secret]');
    expect(JSON.stringify(running.host.config)).not.toContain('super-secret-value');
    running.host.log.info('calling with super-secret-value', { header: 'Bearer super-secret-value' });
    await running.close();
    const logged = lines.join('\n');
    expect(logged).toContain('calling with [secret]');
    expect(logged).not.toContain('super-secret-value');
  });
});

describe('HTTP port', () => {
  const client = createHttpClient();
  afterAll(() => client.close());

  it('a server that never answers is a transient HTTP_TIMEOUT after timeoutMs', async () => {
    const held: ServerResponse[] = [];
    const server = createHttp((_req, res) => { held.push(res); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const err = await client.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectorError);
      expect(err).toMatchObject({ kind: 'transient', code: 'HTTP_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('mutual TLS: the configured client certificate is presented; without it the server refuses', async () => {
    const pki = makePki();
    const server = createHttps({ key: pki.server.key, cert: pki.server.cert, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.end(`hello ${peer.subject?.CN}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const res = await client.request(url, { tls: { cert: pki.client.cert, key: { reveal: () => pki.client.key, toString: () => '[secret]', toJSON: () => '[secret]' }, ca: pki.ca.cert } });
      expect(res.status).toBe(200);
      expect(res.text()).toBe('hello acme-client');
      await expect(client.request(url, { tls: { ca: pki.ca.cert }, timeoutMs: 3_000 })).rejects.toMatchObject({ kind: 'transient', code: 'HTTP_NETWORK_ERROR' });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made for the test. */
function makePki() {
  const keyPair = () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), pub: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()) };
  };
  const issue = (cn: string, subjectKey: ReturnType<typeof keyPair>, issuer: { cn: string; key: string } | null, extensions: object[]) => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = subjectKey.pub;
    cert.serialNumber = String(Math.floor(Math.random() * 1e9));
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 3_600_000);
    cert.setSubject([{ name: 'commonName', value: cn }]);
    cert.setIssuer([{ name: 'commonName', value: issuer?.cn ?? cn }]);
    cert.setExtensions(extensions);
    cert.sign(forge.pki.privateKeyFromPem(issuer?.key ?? subjectKey.key) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
    return forge.pki.certificateToPem(cert);
  };
  const caKey = keyPair();
  const ca = { key: caKey.key, cert: issue('test-ca', caKey, null, [{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true }]) };
  const serverKey = keyPair();
  const server = { key: serverKey.key, cert: issue('127.0.0.1', serverKey, { cn: 'test-ca', key: ca.key }, [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }, { name: 'extKeyUsage', serverAuth: true }]) };
  const clientKey = keyPair();
  const client = { key: clientKey.key, cert: issue('acme-client', clientKey, { cn: 'test-ca', key: ca.key }, [{ name: 'extKeyUsage', clientAuth: true }]) };
  return { ca, server, client };
}
