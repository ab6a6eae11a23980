/**
 * Tag suggestion accuracy: a generated, seeded tagging history of one organization (invoices from
 * suppliers who mostly, not always, sell one category; line wording, amounts and notes drawn per
 * category with a neighbouring category's words and filler, 5 % inconsistent tagging; three suppliers
 * appear only in the held-out part), 80 % learned
 * incrementally by the model the API uses (services/categorization), 20 % held out. Prints top-1
 * and top-3 accuracy against two baselines (the most frequent tag; the supplier's most frequent
 * tag) and the time per suggestion, and writes bench/results/tag-suggestion-<timestamp>.json.
 *
 *   node bench/tag-suggestion.bench.ts [documents=2000] [seed=20261126]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TagSuggestionModel } from '../services/categorization/suggestion-model.ts';
import { documentFeatures } from '../services/categorization/features.ts';

const DOCUMENTS = Number(process.argv[2] ?? 2000);
const SEED = Number(process.argv[3] ?? 20261126);
const HOLD_OUT = 0.2;

/** mulberry32: a small seeded generator, so every run sees the same history. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

interface Category { tag: string; words: string[]; amount: number; notes: string[] }
const CATEGORIES: Category[] = [
  { tag: 'telecom', words: ['mobile', 'subscription', 'fibre', 'internet', 'roaming', 'sim', 'data', 'voip', 'landline'], amount: 80, notes: ['line 0475', 'contract mobile fleet'] },
  { tag: 'office-supplies', words: ['paper', 'printer', 'toner', 'pens', 'folders', 'stapler', 'envelopes', 'notebooks', 'cartridge'], amount: 150, notes: ['delivery to reception', 'stationery order'] },
  { tag: 'software', words: ['licence', 'saas', 'seats', 'subscription', 'cloud', 'support', 'renewal', 'users', 'annual'], amount: 1200, notes: ['annual renewal', 'per seat pricing'] },
  { tag: 'travel', words: ['train', 'ticket', 'flight', 'hotel', 'night', 'taxi', 'booking', 'fare', 'luggage'], amount: 400, notes: ['business trip', 'conference travel'] },
  { tag: 'facilities', words: ['cleaning', 'maintenance', 'repair', 'hvac', 'elevator', 'inspection', 'security', 'building', 'waste'], amount: 900, notes: ['site brussels', 'quarterly maintenance'] },
  { tag: 'consulting', words: ['consulting', 'days', 'advisory', 'audit', 'workshop', 'analysis', 'project', 'expert', 'review'], amount: 6000, notes: ['statement of work', 'time and materials'] },
  { tag: 'hardware', words: ['laptop', 'monitor', 'dock', 'keyboard', 'server', 'switch', 'cables', 'ssd', 'memory'], amount: 2500, notes: ['asset tag', 'warranty 3 years'] },
  { tag: 'marketing', words: ['campaign', 'ads', 'banner', 'print', 'flyers', 'event', 'booth', 'sponsoring', 'design'], amount: 3000, notes: ['spring campaign', 'trade fair'] },
  { tag: 'utilities', words: ['electricity', 'gas', 'water', 'kwh', 'meter', 'consumption', 'energy', 'supply', 'grid'], amount: 700, notes: ['meter reading', 'monthly advance'] },
  { tag: 'legal', words: ['legal', 'counsel', 'contract', 'drafting', 'litigation', 'hours', 'opinion', 'filing', 'notary'], amount: 2000, notes: ['matter 2026-14', 'retainer'] },
];
const FILLER = ['service', 'fee', 'monthly', 'period', 'item', 'various', 'charge', 'invoice', 'total', 'unit'];
const NAME_PARTS = ['Nova', 'Delta', 'Prime', 'Atlas', 'Orion', 'Vega', 'Apex', 'Lumen', 'Terra', 'Quanta', 'Nimbus', 'Vertex', 'Helio', 'Cobalt'];
const SUFFIXES = ['SA', 'SPRL', 'GmbH', 'BV', 'SAS', 'NV', 'Ltd'];

interface Supplier { name: string; peppolId: string; main: Category; newcomer: boolean }
const suppliers: Supplier[] = Array.from({ length: 60 }, (_, i) => ({
  name: `${pick(NAME_PARTS)} ${pick(NAME_PARTS)} ${pick(SUFFIXES)}`,
  peppolId: `0208:${String(100000000 + i * 7919).padStart(10, '0')}`,
  main: CATEGORIES[i % CATEGORIES.length]!,
  // Three suppliers only ever show up in the held-out part: the model must go by lines and amounts.
  newcomer: i % 20 === 7,
}));

interface Example { id: string; supplier: Supplier; tag: string; features: string[] }
function invoice(i: number, supplier: Supplier): Example {
  // A supplier sells its main category 85 % of the time, something else otherwise.
  const category = random() < 0.85 ? supplier.main : pick(CATEGORIES);
  // Words of the category mixed with those of a neighbouring one and filler; one line in five says nothing specific.
  const neighbour = CATEGORIES[(CATEGORIES.indexOf(category) + 1) % CATEGORIES.length]!;
  const word = () => (random() < 0.75 ? pick(category.words) : pick(neighbour.words));
  const lines = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
    item: { name: random() < 0.2 ? `${pick(FILLER)} ${pick(FILLER)}` : [word(), random() < 0.5 ? word() : pick(FILLER), random() < 0.5 ? pick(FILLER) : ''].join(' ').trim() },
    unit: pick(['C62', 'HUR', 'MON', 'DAY']),
  }));
  const total = Math.round(category.amount * Math.exp(0.6 * gaussian()) * 100) / 100;
  const body = { lines, notes: random() < 0.3 ? [{ text: pick(category.notes) }] : [] };
  const features = documentFeatures({ type: 'invoice', currency: 'EUR', totalAmount: total, from: { peppolId: supplier.peppolId, name: supplier.name }, to: { name: 'Client SA' } }, body);
  // People tag inconsistently: 5 % of the history carries some other tag.
  const tag = random() < 0.05 ? pick(CATEGORIES).tag : category.tag;
  return { id: `doc_${i}`, supplier, tag, features };
}

const history: Example[] = Array.from({ length: DOCUMENTS }, (_, i) => invoice(i, pick(suppliers)));
// Hold out 20 %: every newcomer's invoice (about 5 %), then random others up to the share.
const holdOutTarget = Math.round(DOCUMENTS * HOLD_OUT);
const newcomerDocs = history.filter((e) => e.supplier.newcomer);
const rest = history.filter((e) => !e.supplier.newcomer).sort(() => random() - 0.5);
const heldOut = [...newcomerDocs.slice(0, holdOutTarget), ...rest.slice(0, Math.max(0, holdOutTarget - newcomerDocs.length))];
const heldIds = new Set(heldOut.map((e) => e.id));
const training = history.filter((e) => !heldIds.has(e.id));

const model = new TagSuggestionModel();
const trainStart = performance.now();
for (const e of training) model.add(e.id, e.features, e.tag);
const trainMs = performance.now() - trainStart;

// Baselines: the most frequent tag of the history; the supplier's own most frequent tag (else the former).
const counts = (xs: Example[]) => xs.reduce((m, e) => m.set(e.tag, (m.get(e.tag) ?? 0) + 1), new Map<string, number>());
const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([tag]) => tag);
const overall = ranked(counts(training));
const bySupplier = new Map<string, string[]>();
for (const s of suppliers) bySupplier.set(s.peppolId, ranked(counts(training.filter((e) => e.supplier === s))));

let top1 = 0, top3 = 0, empty = 0, base1 = 0, base3 = 0, sup1 = 0, sup3 = 0, newcomerTop1 = 0, newcomers = 0;
const queryStart = performance.now();
for (const e of heldOut) {
  const suggestions = model.suggest(e.features).map((s) => s.tagId);
  if (!suggestions.length) empty++;
  if (suggestions[0] === e.tag) top1++;
  if (suggestions.slice(0, 3).includes(e.tag)) top3++;
  if (overall[0] === e.tag) base1++;
  if (overall.slice(0, 3).includes(e.tag)) base3++;
  const own = bySupplier.get(e.supplier.peppolId)!;
  const supplierGuess = [...own, ...overall.filter((t) => !own.includes(t))];
  if (supplierGuess[0] === e.tag) sup1++;
  if (supplierGuess.slice(0, 3).includes(e.tag)) sup3++;
  if (e.supplier.newcomer) { newcomers++; if (suggestions[0] === e.tag) newcomerTop1++; }
}
const queryMs = (performance.now() - queryStart) / heldOut.length;

const pct = (x: number, of = heldOut.length) => Math.round((x / of) * 1000) / 10;
const result = {
  node: process.version, seed: SEED, documents: DOCUMENTS, training: training.length, heldOut: heldOut.length, tags: CATEGORIES.length, suppliers: suppliers.length,
  accuracy: { top1: pct(top1), top3: pct(top3), newcomerSuppliersTop1: pct(newcomerTop1, newcomers || 1), emptySuggestions: empty },
  baselines: { mostFrequentTag: { top1: pct(base1), top3: pct(base3) }, suppliersMostFrequentTag: { top1: pct(sup1), top3: pct(sup3) } },
  ratios: { top1OverMostFrequent: Math.round((top1 / Math.max(1, base1)) * 100) / 100, top1OverSupplierBaseline: Math.round((top1 / Math.max(1, sup1)) * 100) / 100 },
  timing: { trainMsTotal: Math.round(trainMs), suggestMsPerDocument: Math.round(queryMs * 1000) / 1000 },
};
console.log(`history ${DOCUMENTS} invoices (${training.length} learned, ${heldOut.length} held out; ${newcomers} from suppliers never seen), ${CATEGORIES.length} tags, seed ${SEED}`);
console.log(`model (TF-IDF kNN)          top-1 ${result.accuracy.top1} %   top-3 ${result.accuracy.top3} %   (newcomer suppliers top-1 ${result.accuracy.newcomerSuppliersTop1} %)`);
console.log(`baseline most frequent tag  top-1 ${result.baselines.mostFrequentTag.top1} %   top-3 ${result.baselines.mostFrequentTag.top3} %`);
console.log(`baseline supplier's tag     top-1 ${result.baselines.suppliersMostFrequentTag.top1} %   top-3 ${result.baselines.suppliersMostFrequentTag.top3} %`);
console.log(`ratio top-1 model / most frequent ${result.ratios.top1OverMostFrequent}, model / supplier baseline ${result.ratios.top1OverSupplierBaseline}`);
console.log(`learning ${result.timing.trainMsTotal} ms for ${training.length} taggings, ${result.timing.suggestMsPerDocument} ms per suggestion`);

const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `tag-suggestion-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(result, null, 2));
console.log(`results written to ${file}`);
