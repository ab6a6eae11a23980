/** Idempotency helpers of the gateway: header checks, request hashing, payload-derived keys. */
import type { IncomingMessage } from 'node:http';
import { idempotencyKeyOf, requestHash, derivedIdempotencyKey, redactSecrets, REDACTED_SECRET, REDACTED_HEADER } from '../../../../services/gateway/idempotency.ts';

const req = (key?: string) => ({ headers: key === undefined ? {} : { 'idempotency-key': key } }) as unknown as IncomingMessage;

describe('idempotencyKeyOf', () => {
  it('reads the key; absent is undefined; empty or over 255 characters is a 400 INVALID_REQUEST', () => {
    expect(idempotencyKeyOf(req())).toBeUndefined();
    expect(idempotencyKeyOf(req('abc'))).toBe('abc');
    expect(idempotencyKeyOf(req('k'.repeat(255)))).toHaveLength(255);
    expect(() => idempotencyKeyOf(req('k'.repeat(256)))).toThrow(expect.objectContaining({ type: 'INVALID_REQUEST' }));
    expect(() => idempotencyKeyOf(req(''))).toThrow(expect.objectContaining({ type: 'INVALID_REQUEST' }));
  });
});

const JSON_TYPE = 'application/json';

describe('requestHash and derivedIdempotencyKey', () => {
  it('depends on method, path, query string, content type and body; raw bodies hash their bytes', () => {
    const base = requestHash('POST', '/v1/a', JSON_TYPE, { x: 1 }, undefined);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash('POST', '/v1/a', JSON_TYPE, { x: 1 }, undefined)).toBe(base);
    expect(requestHash('POST', '/v1/a', JSON_TYPE, { x: 2 }, undefined)).not.toBe(base);
    expect(requestHash('POST', '/v1/b', JSON_TYPE, { x: 1 }, undefined)).not.toBe(base);
    expect(requestHash('PUT', '/v1/a', JSON_TYPE, { x: 1 }, undefined)).not.toBe(base);
    expect(requestHash('POST', '/v1/a?to=A', JSON_TYPE, { x: 1 }, undefined)).not.toBe(requestHash('POST', '/v1/a?to=B', JSON_TYPE, { x: 1 }, undefined));
    expect(requestHash('POST', '/v1/a', 'application/xml', undefined, Buffer.from('<a/>'))).not.toBe(requestHash('POST', '/v1/a', 'application/pdf', undefined, Buffer.from('<a/>')));
    expect(requestHash('POST', '/v1/a', undefined, undefined, Buffer.from('<Invoice/>'))).not.toBe(requestHash('POST', '/v1/a', undefined, undefined, Buffer.from('<Invoice />')));
  });

  it('derives one key per payload, query string and path', () => {
    const k = derivedIdempotencyKey('/v1/documents/send', JSON_TYPE, { number: 'INV-1' }, undefined);
    expect(k).toMatch(/^derived:[0-9a-f]{64}$/);
    expect(k.length).toBeLessThanOrEqual(255);
    expect(derivedIdempotencyKey('/v1/documents/send', JSON_TYPE, { number: 'INV-1' }, undefined)).toBe(k);
    expect(derivedIdempotencyKey('/v1/documents/send', JSON_TYPE, { number: 'INV-2' }, undefined)).not.toBe(k);
    const raw = Buffer.from('<Invoice/>');
    expect(derivedIdempotencyKey('/v1/documents/send?to=0208:1', 'application/xml', undefined, raw)).not.toBe(derivedIdempotencyKey('/v1/documents/send?to=0208:2', 'application/xml', undefined, raw));
  });
});

describe('redactSecrets', () => {
  const stored = (status: number, body: unknown) => ({ status, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(body)).toString('base64') });
  const bodyOf = (r: { body: string }) => JSON.parse(Buffer.from(r.body, 'base64').toString('utf8'));

  it('masks the secret fields of a success body and names them in a header', () => {
    const out = redactSecrets(stored(201, { id: 'key_1', key: 'svc_test_secret' }), ['key']);
    expect(bodyOf(out)).toEqual({ id: 'key_1', key: REDACTED_SECRET });
    expect(out.headers[REDACTED_HEADER]).toBe('key');
  });

  it('masks secrets inside nested objects named by a dotted path, and skips a path that is absent or null', () => {
    const out = redactSecrets(stored(201, { company: { id: 'comp_1' }, apiKey: { id: 'key_1', key: 'svc_test_secret' }, webhook: null }), ['apiKey.key', 'webhook.secret']);
    expect(bodyOf(out)).toEqual({ company: { id: 'comp_1' }, apiKey: { id: 'key_1', key: REDACTED_SECRET }, webhook: null });
    expect(out.headers[REDACTED_HEADER]).toBe('apiKey.key');
  });

  it('leaves errors, operations without secrets and bodies without the field as they are', () => {
    const error = stored(400, { error: { code: 'X' } });
    expect(redactSecrets(error, ['key'])).toBe(error);
    const plain = stored(201, { id: 'x' });
    expect(redactSecrets(plain, ['key'])).toBe(plain);
    expect(redactSecrets(plain, undefined)).toBe(plain);
  });
});
