/**
 * The readable PDF and the Factur-X of invoices of 10, 100 and 1,000 lines: milliseconds per
 * document and output size. Written to weigh the embedded, subset DejaVu Sans fonts against the
 * standard Helvetica they replaced (mappings/render/README.md, "Cost"): the first document of the
 * process is timed apart, as it pays the one-time font load. Prints a table and writes
 * bench/results/render-<timestamp>.json.
 *
 *   node bench/render.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalToFacturX, canonicalToPdf, jsonToCanonical, type CanonicalInvoice } from '../mappings/index.ts';

const SIZES = [10, 100, 1_000];
/** Rounds interleave the sizes, so a burst of load on the shared machine hits all of them alike; the best round is reported. */
const ROUNDS = 3;

function invoice(lines: number): CanonicalInvoice {
  return jsonToCanonical({
    type: 'invoice',
    document: {
      number: `BENCH-${lines}`,
      issueDate: '2026-11-22',
      dueDate: '2026-12-22',
      currency: 'EUR',
      buyerReference: 'PO-4711',
      note: 'Benchmark invoice',
      seller: { name: 'Acme SPRL', vatNumber: 'BE0123456789', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
      buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
      payment: { means: 'credit_transfer', iban: 'BE68539007547034', bic: 'GEBABEBB' },
      lines: Array.from({ length: lines }, (_, i) => ({
        description: `Item ${i}: spare part with a descriptive name that wraps in its column`,
        itemCode: `SKU-${i}`,
        quantity: (i % 7) + 1,
        unit: 'C62',
        unitPrice: `${(i % 97) + 1}.${String(i % 100).padStart(2, '0')}`,
        vatRate: 21,
      })),
    },
  }, { today: '2026-11-22' });
}

/** CPU and wall milliseconds of one call, and the bytes it returned. */
async function timed(fn: () => Promise<Uint8Array>): Promise<{ cpu: number; wall: number; bytes: number }> {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const out = await fn();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / 1000, wall, bytes: out.length };
}

const KINDS = { PDF: (c: CanonicalInvoice) => canonicalToPdf(c), 'Factur-X': async (c: CanonicalInvoice) => (await canonicalToFacturX(c)).pdf } as const;
type Kind = keyof typeof KINDS;

const fixtures = new Map(SIZES.map((n) => [n, invoice(n)]));
const first = await timed(() => KINDS.PDF(fixtures.get(10)!));

interface Row { kind: Kind; lines: number; cpuMs: number; wallMs: number; bytes: number }
const runs = new Map<string, Array<{ cpu: number; wall: number; bytes: number }>>();
for (let round = 0; round < ROUNDS; round++) {
  for (const n of SIZES) {
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const key = `${kind}/${n}`;
      runs.set(key, [...(runs.get(key) ?? []), await timed(() => KINDS[kind](fixtures.get(n)!))]);
    }
  }
}
const rows: Row[] = [...runs].map(([key, r]) => {
  const [kind, lines] = key.split('/') as [Kind, string];
  return { kind, lines: Number(lines), cpuMs: Math.min(...r.map((x) => x.cpu)), wallMs: Math.min(...r.map((x) => x.wall)), bytes: r[0]!.bytes };
});

console.log(`\nrender bench (node ${process.version}); best of ${ROUNDS}, CPU ms per document (wall in the JSON), output size\n`);
console.log(`first PDF of the process (10 lines, one-time font load included): ${first.cpu.toFixed(0)} ms CPU, ${first.wall.toFixed(0)} ms wall\n`);
console.log(['lines'.padEnd(8), ...Object.keys(KINDS).map((k) => k.padStart(24))].join(''));
for (const n of SIZES) {
  const cells = (Object.keys(KINDS) as Kind[]).map((kind) => {
    const r = rows.find((x) => x.kind === kind && x.lines === n)!;
    return `${r.cpuMs.toFixed(0)} ms, ${(r.bytes / 1024).toFixed(0)} KB`.padStart(24);
  });
  console.log([String(n).padEnd(8), ...cells].join(''));
}

const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `render-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ node: process.version, first, rows }, null, 2));
console.log(`\nresults written to ${file}`);
