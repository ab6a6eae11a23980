/**
 * What a hostile hybrid PDF costs us: an embedded factur-x.xml that inflates to 1 GB of zeros must
 * be refused at the inflate cap in a bounded time and memory (the cap, not the bomb, sets the cost).
 * Prints wall time and resident-memory growth per bomb size; the unit test
 * (test/unit/mappings/factur-x/limits.spec.ts) asserts the refusal and the memory bound, this bench
 * says how long it takes — a timing is a measurement, not a test.
 *
 *   node bench/hostile-pdf.bench.ts
 */
import { extractHybridPdf } from '../mappings/factur-x/extract.ts';
import { DEFAULT_PDF_LIMITS } from '../mappings/factur-x/limits.ts';
import { pdfInflateBomb } from '../test/support/hostile-inputs.ts';

const SIZES_MB = [64, 256, 1024];
const RUNS = 3;

console.log(`inflate cap ${(DEFAULT_PDF_LIMITS.maxInflatedBytes / 1024 ** 2).toFixed(0)} MB; ${RUNS} runs per size (median)`);
console.log('bomb (inflated) | PDF size | refusal time | RSS growth');
for (const mb of SIZES_MB) {
  const bomb = await pdfInflateBomb(mb * 1024 ** 2);
  const times: number[] = [];
  let rssGrowth = 0;
  for (let i = 0; i < RUNS; i++) {
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    const refused = await extractHybridPdf(bomb).then(() => false, (e: { code?: string }) => e.code === 'PAYLOAD_TOO_LARGE');
    times.push(performance.now() - t0);
    rssGrowth = Math.max(rssGrowth, process.memoryUsage().rss - rss);
    if (!refused) throw new Error(`a ${mb} MB bomb was not refused`);
  }
  times.sort((a, b) => a - b);
  console.log(`${String(mb).padStart(6)} MB | ${(bomb.length / 1024).toFixed(0).padStart(6)} KB | ${times[1]!.toFixed(0).padStart(8)} ms | ${(rssGrowth / 1024 ** 2).toFixed(0).padStart(5)} MB`);
}
