/**
 * Document search over 10,000 documents of one organization (plus 10,000 of another, so the tenant
 * predicate has to use its index): a nested predicate tree ($and/$or three levels deep, ranges, $in,
 * $notIn, $contains, $ne) sorted by amount, through HTTP (POST /v1/documents/search) and as the
 * compiled statement under EXPLAIN ANALYZE. Bounded: a fixed number of queries.
 *
 *   node bench/documents-search.bench.ts [queries=200] [documents=10000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import pg from 'pg';
import { startBenchApp, percentile } from './support/bench-app.ts';

const QUERIES = Number(process.argv[2] ?? 200);
const DOCUMENTS = Number(process.argv[3] ?? 10_000);

const bench = await startBenchApp({ env: { EINV_RATE_LIMITS: 'free=100000000' } });
const { base } = bench;
const { buildSearchSql } = await import('../services/documents/reads.ts');

const FILTERS = {
  type: { $in: ['invoice', 'credit-note'] },
  $or: [
    { $and: [{ totalAmount: { $gte: 1000, $lt: 4000 } }, { issueDate: { $gte: '2026-03-01' } }, { $or: [{ direction: 'outgoing' }, { receiverName: { $contains: 'Client 1' } }] }] },
    { $and: [{ status: 'disputed' }, { number: { $contains: 'B-00' } }] },
  ],
  currency: { $ne: 'USD' },
  deliveryStatus: { $notIn: ['failed'] },
};
const SORT = [{ totalAmount: 'desc' }, 'issueDate:asc'];

async function seed(client: pg.Client, organizationId: string, companyId: string, prefix: string, count: number) {
  await client.query(
    `insert into documents (id, organization_id, company_id, livemode, direction, type, format, number, issue_date, due_date, currency, total_amount,
       seller_key, sender_name, receiver_name, status, lifecycle_code, lifecycle, delivery_status, delivery_attempts, notes, related_document_ids,
       has_pdf, created_at, updated_at)
     select 'doc_' || $3 || lpad(g::text, 22, '0'), $1, $2, false,
       case when g % 3 = 0 then 'incoming' else 'outgoing' end,
       (array['invoice', 'credit-note', 'purchase-order', 'quote'])[1 + g % 4], 'json', $3 || '-' || lpad(g::text, 6, '0'),
       to_char(date '2026-01-01' + (g % 365), 'YYYY-MM-DD'), to_char(date '2026-02-01' + (g % 365), 'YYYY-MM-DD'),
       case when g % 10 = 0 then 'USD' else 'EUR' end, round(((g * 7919) % 5000) * 1.37, 2),
       'BE0403170701', 'Supplier ' || (g % 50), 'Client ' || (g % 97),
       (array['sent', 'received', 'approved', 'paid', 'disputed'])[1 + g % 5], '203', '[]'::jsonb,
       case when g % 7 = 0 then 'failed' else 'delivered' end, 0, '[]'::jsonb, '[]'::jsonb, false,
       now() - make_interval(secs => g), now()
     from generate_series(1, $4::int) g`,
    [organizationId, companyId, prefix, count],
  );
}

try {
  const boot = async () => (await (await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { apiKey: string; organizationId: string; company: { id: string } };
  const [mine, other] = [await boot(), await boot()];
  const client = new pg.Client({ connectionString: bench.databaseUrl });
  await client.connect();
  const t0 = performance.now();
  await seed(client, mine.organizationId, mine.company.id, 'B', DOCUMENTS);
  await seed(client, other.organizationId, other.company.id, 'O', DOCUMENTS);
  await client.query('analyze documents');
  const seedMs = performance.now() - t0;
  console.log(`seeded ${DOCUMENTS} + ${DOCUMENTS} documents (two organizations) in ${seedMs.toFixed(0)} ms`);

  const body = JSON.stringify({ filters: FILTERS, sort: SORT, limit: 50 });
  const headers = { authorization: `Bearer ${mine.apiKey}`, 'content-type': 'application/json' };
  const once = async () => {
    const res = await fetch(`${base}/v1/documents/search`, { method: 'POST', headers, body });
    const json = (await res.json()) as { data: unknown[]; hasMore: boolean };
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const first = await once();
  for (let i = 0; i < 20; i++) await once(); // warm-up

  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < QUERIES; i++) {
    const q0 = performance.now();
    await once();
    latencies.push(performance.now() - q0);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);

  // The very statement the service runs, under EXPLAIN ANALYZE (server-side bind parameters).
  const built = buildSearchSql({ organizationId: mine.organizationId, livemode: false, companyId: mine.company.id }, { filters: FILTERS, sort: SORT, limit: 50 });
  let n = 0;
  const text = built.sql.replace(/\?/g, () => `$${++n}`);
  const explain = await client.query(`explain (analyze, format json) ${text}`, built.params);
  const plan = (explain.rows[0] as { 'QUERY PLAN': Array<{ 'Execution Time': number; 'Planning Time': number; Plan: Record<string, unknown> }> })['QUERY PLAN'][0]!;
  const nodes: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    nodes.push(`${node['Node Type']}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`);
    for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
  };
  walk(plan.Plan);
  const matched = await client.query(`select count(*)::int as n from documents where organization_id = $1`, [mine.organizationId]);
  await client.end();

  const row = {
    documents: DOCUMENTS, otherTenantDocuments: DOCUMENTS, queries: QUERIES, pageSize: 50, firstPageRows: first.data.length, hasMore: first.hasMore,
    httpPerSecond: Math.round(QUERIES / seconds),
    httpP50Ms: +percentile(latencies, 50).toFixed(2), httpP99Ms: +percentile(latencies, 99).toFixed(2),
    sqlExecutionMs: +plan['Execution Time'].toFixed(3), sqlPlanningMs: +plan['Planning Time'].toFixed(3), plan: nodes,
    organizationRows: (matched.rows[0] as { n: number }).n,
  };
  console.log(`nested predicate search over ${DOCUMENTS} documents: HTTP p50 ${row.httpP50Ms} ms, p99 ${row.httpP99Ms} ms (${row.httpPerSecond} queries/s, sequential); SQL execution ${row.sqlExecutionMs} ms (planning ${row.sqlPlanningMs} ms)`);
  console.log(`plan: ${nodes.join(' → ')}`);
  console.log(`first page: ${row.firstPageRows} rows, hasMore ${row.hasMore}`);
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/documents-search-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), filters: FILTERS, sort: SORT, ...row }, null, 2));
  console.log(`written ${file}`);
} finally {
  await bench.stop();
}
