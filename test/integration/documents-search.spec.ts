/**
 * Batch send, list filters and search over HTTP: predicate trees, sort forms, cursor pages, the
 * 400 for unsupported operators, tenant isolation, and injection attempts that stay plain values.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
const item = (number: string, unitPrice: number, issueDate: string, to = '9999:sandbox-invoice-only') => ({
  type: 'invoice', format: 'json', to,
  // The sender (a) issues them: its own VAT number on the seller.
  document: { number, issueDate, dueDate: '2026-06-30', buyerReference: 'PO-1', seller: { ...seller, vatNumber: a.company.vatNumber }, buyer, lines: [{ description: 'Work', quantity: 1, unit: 'HUR', unitPrice, vatRate: 21 }] },
});
// Totals with 21 % VAT: 100 → 121, 200 → 242, …
const SEED = [
  ['S-001', 100, '2026-01-05'], ['S-002', 200, '2026-01-20'], ['S-003', 300, '2026-02-03'], ['S-004', 400, '2026-02-14'],
  ['S-005', 500, '2026-03-01'], ['X-006', 600, '2026-03-15'], ['X-007', 700, '2026-04-02'], ['X-008', 800, '2026-04-30'],
] as const;

beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'searcher' }), await bootstrap(t.baseUrl, { label: 'other' })];
});
afterAll(async () => { await t.stop(); });

const numbers = (res: { body: { data: Array<{ number: string }> } }) => res.body.data.map((d) => d.number);

describe('send batch', () => {
  it('sends up to 100 documents, each atomic, results in input order', async () => {
    const documents = [
      ...SEED.map(([n, p, d]) => item(n, p, d)),
      { type: 'invoice', format: 'json', document: { number: 'NO-TO' } },
      item('S-001', 999, '2026-05-01'),
      { type: 'quote', format: 'json', to: '9999:sandbox-invoice-only', document: { number: 'Q-1' } },
    ];
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send/batch', { key: a.apiKey, body: { documents } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual([
      ...SEED.map((_, i) => [i, 'created']), [8, 'failed'], [9, 'failed'], [10, 'failed'],
    ]);
    expect(res.body.results[0].document).toMatchObject({ number: 'S-001', direction: 'outgoing', deliveryStatus: 'pending' });
    expect(res.body.results[8].error).toMatchObject({ code: 'MISSING_FIELD', details: [expect.objectContaining({ field: 'to' })] });
    expect(res.body.results[9].error.code).toBe('DUPLICATE_DOCUMENT');
    expect(res.body.results[10].error.code).toBe('RECIPIENT_CANNOT_RECEIVE');
    expect(res.body.results[8].document).toBeNull();
  });

  it('refuses more than 100 documents and an empty batch', async () => {
    const many = Array.from({ length: 101 }, (_, i) => item(`M-${i}`, 1, '2026-01-01'));
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send/batch', { key: a.apiKey, body: { documents: many } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send/batch', { key: a.apiKey, body: { documents: [] } }), 400, 'INVALID_REQUEST');
  });
});

describe('list', () => {
  it('filters by type, amount range, issue-date range, company and status; search= is ignored', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/documents?type=invoice&amountMin=300&amountMax=800&from=2026-02-01&to=2026-04-01&search=anything', { key: a.apiKey });
    expect(res.status).toBe(200);
    // 300→363, 400→484, 500→605, 600→726 in range; X-007 issued 2026-04-02 is after `to`.
    expect(numbers(res).sort()).toEqual(['S-003', 'S-004', 'S-005', 'X-006']);
    expect((await api(t.baseUrl, 'GET', `/v1/documents?companyId=${a.company.id}&limit=100`, { key: a.apiKey })).body.data).toHaveLength(8);
    expect((await api(t.baseUrl, 'GET', '/v1/documents?companyId=comp_other', { key: a.apiKey })).body.data).toEqual([]);
    expect(numbers(await api(t.baseUrl, 'GET', '/v1/documents?status=sent&type=invoice&limit=100', { key: a.apiKey }))).toHaveLength(8);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/documents?from=yesterday', { key: a.apiKey }), 400, 'INVALID_REQUEST');
  });

  it('400 INVALID_ENUM for a status, type or direction filter outside its values, instead of an empty list', async () => {
    for (const query of ['status=bogus', 'type=invoices', 'direction=sideways']) {
      const res = await api(t.baseUrl, 'GET', `/v1/documents?${query}`, { key: a.apiKey });
      expectEnvelope(res, 400, 'INVALID_ENUM');
      expect(res.body.error.details[0].field).toBe(query.split('=')[0]);
    }
  });

  it('pages newest first with a cursor, no row twice; a negative cursor is the first page', async () => {
    const seen: Array<{ id: string; number: string }> = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Array<{ id: string; number: string }>; hasMore: boolean; cursor: string | null } } = await api(t.baseUrl, 'GET', `/v1/documents?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key: a.apiKey });
      seen.push(...res.body.data);
      cursor = res.body.cursor;
      expect(res.body.hasMore).toBe(cursor !== null);
    } while (cursor);
    // Batch items are created side by side, so creation order (ids) need not be input order.
    expect(seen.map((d) => d.number).sort()).toEqual(SEED.map(([n]) => n));
    const ids = seen.map((d) => d.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(8);
    expect((await api(t.baseUrl, 'GET', '/v1/documents?limit=2&cursor=-1', { key: a.apiKey })).body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 2));
  });

  it('never shows another organization its documents', async () => {
    expect((await api(t.baseUrl, 'GET', '/v1/documents', { key: b.apiKey })).body.data).toEqual([]);
    expect((await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { number: 'S-001' } } })).body.data).toEqual([]);
  });
});

describe('search', () => {
  const search = (body: unknown, key = a.apiKey) => api(t.baseUrl, 'POST', '/v1/documents/search', { key, body });

  it('answers a nested predicate tree', async () => {
    const res = await search({
      filters: {
        type: 'invoice',
        $or: [
          { $and: [{ number: { $contains: 'S-' } }, { totalAmount: { $gte: 242, $lte: 484 } }] },
          { $and: [{ number: { $in: ['X-007', 'X-008'] } }, { issueDate: { $gt: '2026-04-15' } }] },
        ],
        dueDate: { $notNull: true },
        currency: { $ne: 'USD' },
      },
      sort: { totalAmount: 'asc' },
    });
    expect(res.status).toBe(200);
    expect(numbers(res)).toEqual(['S-002', 'S-003', 'S-004', 'X-008']);
  });

  it('bare arrays are $in; $notIn, $notContains, $lt, $notNull work', async () => {
    expect(numbers(await search({ filters: { number: ['S-001', 'S-005'] }, sort: 'number:asc' }))).toEqual(['S-001', 'S-005']);
    expect(numbers(await search({ filters: { number: { $notIn: ['S-001'], $notContains: 'X' }, totalAmount: { $lt: 500 } }, sort: 'number' }))).toEqual(['S-002', 'S-003', 'S-004']);
    expect(numbers(await search({ filters: { issueDate: { $notNull: true }, number: { $contains: 'x-00' } }, sort: 'number:desc' }))).toEqual(['X-008', 'X-007', 'X-006']);
  });

  it('sorts by a map, a string or a mixed list with left-to-right precedence, and pages with that sort', async () => {
    expect(numbers(await search({ sort: { totalAmount: 'desc' }, limit: 3 }))).toEqual(['X-008', 'X-007', 'X-006']);
    expect(numbers(await search({ sort: 'issueDate:asc', limit: 2 }))).toEqual(['S-001', 'S-002']);
    // Prefix (S/X) first, descending amount second: the list keeps the order given.
    const mixed = await search({ filters: { number: { $in: ['S-001', 'S-002', 'X-006', 'X-007'] } }, sort: [{ direction: 'asc' }, 'totalAmount:desc'] });
    expect(numbers(mixed)).toEqual(['X-007', 'X-006', 'S-002', 'S-001']);

    const pages: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await search({ sort: ['issueDate:desc'], limit: 3, ...(cursor ? { cursor } : {}) });
      pages.push(...numbers(res));
      if (!res.body.cursor) break;
      cursor = res.body.cursor;
    }
    expect(pages).toEqual([...SEED].sort((x, y) => y[2].localeCompare(x[2])).map(([n]) => n));
    expect(numbers(await search({ sort: 'number:asc', limit: 1, cursor: -5 }))).toEqual(['S-001']);
  });

  it('text query over number and party names', async () => {
    expect(numbers(await search({ query: 'x-00', sort: 'number' }))).toEqual(['X-006', 'X-007', 'X-008']);
  });

  it('400 for an unsupported operator (named, with the accepted ones), companyId beyond $eq, unknown fields and bad cursors', async () => {
    const op = await search({ filters: { number: { $regex: '^S' } } });
    expectEnvelope(op, 400, 'INVALID_REQUEST');
    expect(op.body.error.message).toContain("'$regex'");
    expect(op.body.error.message).toContain('$eq, $ne, $lt, $lte, $gt, $gte, $contains, $notContains, $in, $notIn, $null, $notNull');
    expect(op.body.error.details[0]).toMatchObject({ field: 'number.$regex', rule: 'operator' });
    expectEnvelope(await search({ filters: { $not: { type: 'invoice' } } }), 400, 'INVALID_REQUEST');
    const comp = await search({ filters: { companyId: { $in: [a.company.id] } } });
    expectEnvelope(comp, 400, 'INVALID_REQUEST');
    expect(comp.body.error.message).toContain('companyId accepts only $eq');
    expect(numbers(await search({ filters: { companyId: a.company.id } }))).toHaveLength(8);
    expectEnvelope(await search({ filters: { organization_id: b.organizationId } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await search({ cursor: 'not-a-cursor' }), 400, 'INVALID_REQUEST');
  });

  it('injection attempts stay values: no match, no error, the table intact', async () => {
    for (const hostile of ["S-001' or '1'='1", "'; drop table documents; --", 'S-001" or "1"="1', '%', '_-001']) {
      const res = await search({ filters: { $or: [{ number: hostile }, { senderName: { $contains: hostile } }, { number: { $in: [hostile] } }] } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
    expect((await search({ query: "' or 1=1 --" })).body.data).toEqual([]);
    expectEnvelope(await search({ sort: { 'id; drop table documents': 'asc' } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await search({ sort: 'number:asc; drop table documents' }), 400, 'INVALID_REQUEST');
    expect(numbers(await search({ filters: { number: { $contains: 'S-00' } } }))).toHaveLength(5);
  });
});
