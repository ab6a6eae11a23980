/** Idempotency helpers of the gateway: header checks, request hashing, payload-derived keys. */
import type { IncomingMessage } from 'node:http';
import { idempotencyKeyOf, requestHash, derivedIdempotencyKey } from '../../../../services/gateway/idempotency.ts';

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

describe('requestHash and derivedIdempotencyKey', () => {
  it('depends on method, path and body; raw bodies hash their bytes', () => {
    const base = requestHash('POST', '/v1/a', { x: 1 }, undefined);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash('POST', '/v1/a', { x: 1 }, undefined)).toBe(base);
    expect(requestHash('POST', '/v1/a', { x: 2 }, undefined)).not.toBe(base);
    expect(requestHash('POST', '/v1/b', { x: 1 }, undefined)).not.toBe(base);
    expect(requestHash('PUT', '/v1/a', { x: 1 }, undefined)).not.toBe(base);
    expect(requestHash('POST', '/v1/a', undefined, Buffer.from('<Invoice/>'))).not.toBe(requestHash('POST', '/v1/a', undefined, Buffer.from('<Invoice />')));
  });

  it('derives one key per payload and path', () => {
    const k = derivedIdempotencyKey('/v1/documents/send', { number: 'INV-1' }, undefined);
    expect(k).toMatch(/^derived:[0-9a-f]{64}$/);
    expect(k.length).toBeLessThanOrEqual(255);
    expect(derivedIdempotencyKey('/v1/documents/send', { number: 'INV-1' }, undefined)).toBe(k);
    expect(derivedIdempotencyKey('/v1/documents/send', { number: 'INV-2' }, undefined)).not.toBe(k);
  });
});
