import { createHmac } from 'node:crypto';
import { generateWebhookSecret, signWebhookPayload, verifyWebhookSignature } from '../../../../services/webhooks/signature.ts';

const body = '{"id":"evt_1","type":"document.sent","data":{"amount":1.10}}';

describe('webhook signatures', () => {
  it('signs HMAC-SHA256 over "<t>.<raw body>" as t=<unix>,v1=<hex>', () => {
    const header = signWebhookPayload(['whsec_a'], body, 1_700_000_000);
    const hex = createHmac('sha256', 'whsec_a').update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${hex}`);
  });

  it('verifies within the 5-minute tolerance on both sides, not beyond', () => {
    const header = signWebhookPayload(['whsec_a'], body, 1_700_000_000);
    expect(verifyWebhookSignature(header, body, 'whsec_a', { now: 1_700_000_000 })).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_a', { now: 1_700_000_300 })).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_a', { now: 1_699_999_700 })).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_a', { now: 1_700_000_301 })).toBe(false);
    expect(verifyWebhookSignature(header, body, 'whsec_a', { now: 1_699_999_699 })).toBe(false);
  });

  it('needs the raw body: re-serialised JSON, another secret or a tampered hex fail', () => {
    const header = signWebhookPayload(['whsec_a'], body, 1_700_000_000);
    const now = { now: 1_700_000_000 };
    expect(verifyWebhookSignature(header, JSON.stringify(JSON.parse(body)), 'whsec_a', now)).toBe(false);
    expect(verifyWebhookSignature(header, body, 'whsec_b', now)).toBe(false);
    expect(verifyWebhookSignature(header.replace(/.$/, (c) => (c === '0' ? '1' : '0')), body, 'whsec_a', now)).toBe(false);
    expect(verifyWebhookSignature(header.slice(0, -2), body, 'whsec_a', now)).toBe(false);
    for (const bad of [undefined, '', 't=abc,v1=00', 'v1=00', 't=1700000000']) expect(verifyWebhookSignature(bad, body, 'whsec_a', now)).toBe(false);
  });

  it('accepts any v1 during a rotation (both secrets sign) and Buffer bodies', () => {
    const header = signWebhookPayload(['whsec_new', 'whsec_old'], body, 1_700_000_000);
    expect(header.split(',')).toHaveLength(3);
    for (const secret of ['whsec_new', 'whsec_old']) expect(verifyWebhookSignature(header, Buffer.from(body), secret, { now: 1_700_000_010 })).toBe(true);
  });

  it('generates distinct whsec_ secrets with 256 bits', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});
