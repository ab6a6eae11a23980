/** The key-encryption secret of the built-in issuer: configured, or generated once into the data directory with mode 0600. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_SECRET_FILE, resolveKeySecret } from '../../../../services/identity/key-secret.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'einv-key-secret-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('uses EINV_OAUTH_KEY_SECRET when configured and writes nothing', () => {
  expect(resolveKeySecret('from the environment', dir)).toEqual({ secret: 'from the environment', source: 'env', generated: false });
  expect(() => statSync(join(dir, KEY_SECRET_FILE))).toThrow(/ENOENT/);
});

it('generates a random secret once, readable by the owner only, and reuses it', () => {
  const data = join(dir, 'nested', 'data');
  const first = resolveKeySecret(undefined, data);
  expect(first).toMatchObject({ source: 'file', generated: true, path: join(data, KEY_SECRET_FILE) });
  expect(first.secret).toMatch(/^[\w-]{43}$/);
  expect(statSync(first.path!).mode & 0o777).toBe(0o600);
  const again = resolveKeySecret(undefined, data);
  expect(again).toMatchObject({ secret: first.secret, generated: false });
  expect(resolveKeySecret(undefined, join(dir, 'other')).secret).not.toBe(first.secret);
});

it('refuses an empty secret file rather than encrypting with nothing', () => {
  writeFileSync(join(dir, KEY_SECRET_FILE), '\n');
  expect(() => resolveKeySecret(undefined, dir)).toThrow(/empty/);
  expect(readFileSync(join(dir, KEY_SECRET_FILE), 'utf8')).toBe('\n');
});
