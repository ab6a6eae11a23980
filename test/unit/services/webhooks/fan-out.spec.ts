import { MAX_ATTEMPTS, payloadFor, retryDelayAfter, subscribes } from '../../../../services/webhooks/fan-out.ts';

const hook = { companyId: 'comp_1', events: ['document.sent'], livemode: false, status: 'active' };
const event = { type: 'document.sent', livemode: false, companyId: 'comp_1', data: {} };

describe('fan-out rules', () => {
  it('matches by name or *, same mode, same company, active only', () => {
    expect(subscribes(hook, event)).toBe(true);
    expect(subscribes({ ...hook, events: ['*'] }, { ...event, type: 'lifecycle.updated' })).toBe(true);
    expect(subscribes(hook, { ...event, type: 'document.failed' })).toBe(false);
    expect(subscribes(hook, { ...event, livemode: true })).toBe(false);
    expect(subscribes(hook, { ...event, companyId: 'comp_2' })).toBe(false);
    expect(subscribes({ ...hook, companyId: null }, { ...event, companyId: 'comp_2' })).toBe(true);
    expect(subscribes({ ...hook, status: 'paused' }, event)).toBe(false);
    expect(subscribes({ ...hook, status: 'disabled' }, event)).toBe(false);
  });

  it('never delivers log-only events, even to *', () => {
    for (const type of ['company.imported', 'company.import.pending']) expect(subscribes({ ...hook, events: ['*'] }, { ...event, type })).toBe(false);
  });

  it('compliance.reported.failed selects failed reports only', () => {
    const h = { ...hook, events: ['compliance.reported.failed'] };
    expect(subscribes(h, { ...event, type: 'compliance.reported', data: { status: 'failed' } })).toBe(true);
    expect(subscribes(h, { ...event, type: 'compliance.reported', data: { status: 'reported' } })).toBe(false);
  });

  it('adds data.company.id and the tenant metadata for platform-level webhooks only', () => {
    const env = { id: 'evt_1', type: 'document.sent', livemode: false, createdAt: 'x', apiVersion: '2026-11-22', data: { documentId: 'doc_1' } };
    expect(payloadFor({ companyId: 'comp_1' }, env, { id: 'comp_1', metadata: { a: 1 } })).toBe(env);
    expect(payloadFor({ companyId: null }, env, { id: 'comp_1', metadata: { a: 1 } }).data).toEqual({ documentId: 'doc_1', company: { id: 'comp_1' }, metadata: { a: 1 } });
    expect(payloadFor({ companyId: null }, env, { id: 'comp_1', metadata: null }).data.metadata).toEqual({});
  });

  it('retries after 30 s, 2 min, 10 min, 30 min, 2 h, 6 h, 12 h: 8 attempts, about 20 h 42 min in all', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelayAfter(i + 1));
    expect(delays).toEqual([30, 120, 600, 1800, 7200, 21600, 43200, null]);
    const total = delays.reduce<number>((s, d) => s + (d ?? 0), 0);
    expect(total).toBe(20 * 3600 + 42 * 60 + 30);
  });
});
