/** The TF-IDF nearest-neighbour tag model: learns from history only, incremental add and remove, ranked confidences. */
import { TagSuggestionModel } from '../../../../services/categorization/suggestion-model.ts';
import { contextFeatures, documentFeatures, words } from '../../../../services/categorization/features.ts';

const invoice = (seller: string, line: string, total: number) => documentFeatures(
  { type: 'invoice', currency: 'EUR', totalAmount: total, from: { peppolId: null, name: seller }, to: { name: 'Us' } },
  { lines: [{ item: { name: line }, unit: 'C62' }] },
);

it('suggests nothing without history (no guess)', () => {
  expect(new TagSuggestionModel().suggest(invoice('Acme', 'paper', 50))).toEqual([]);
});

it('ranks the tags of the most similar tagged objects first, with confidences in (0, 1]', () => {
  const m = new TagSuggestionModel();
  m.add('d1', invoice('Orange Telecom', 'mobile subscription', 40), 'telecom');
  m.add('d2', invoice('Orange Telecom', 'fibre internet', 45), 'telecom');
  m.add('d3', invoice('Bureau Vallee', 'printer paper', 60), 'office');
  m.add('d4', invoice('Bureau Vallee', 'pens and folders', 30), 'office');
  m.add('d4', [], 'project-x');
  const ranked = m.suggest(invoice('Orange Telecom', 'mobile subscription', 42));
  expect(ranked[0]!.tagId).toBe('telecom');
  expect(ranked[0]!.confidence).toBeGreaterThan(0.5);
  for (const s of ranked) expect(s.confidence).toBeGreaterThan(0);
  expect(ranked.map((s) => s.confidence)).toEqual([...ranked.map((s) => s.confidence)].sort((a, b) => b - a));
  expect(m.suggest(invoice('Bureau Vallee', 'paper', 50))[0]!.tagId).toBe('office');
  // Multi-label: d4's second tag is suggested with office, excluded tags are not.
  expect(m.suggest(invoice('Bureau Vallee', 'pens', 30)).map((s) => s.tagId)).toEqual(expect.arrayContaining(['office', 'project-x']));
  expect(m.suggest(invoice('Bureau Vallee', 'pens', 30), { exclude: new Set(['office']) }).map((s) => s.tagId)).not.toContain('office');
});

it('learns incrementally: a new tagging changes the next suggestion, a removed one is forgotten', () => {
  const m = new TagSuggestionModel();
  m.add('d1', invoice('Acme', 'consulting', 1000), 'services');
  m.add('d2', invoice('Initech', 'software licence', 1200), 'services');
  expect(m.suggest(invoice('Globex', 'steel beams', 9000)).map((s) => s.tagId)).not.toContain('materials');
  m.add('d3', invoice('Globex', 'steel beams', 8000), 'materials');
  const after = m.suggest(invoice('Globex', 'steel beams', 9000));
  expect(after[0]).toMatchObject({ tagId: 'materials' });
  expect(after[0]!.confidence).toBeGreaterThan(0.5);
  m.remove('d3', 'materials');
  expect(m.size).toBe(2);
  expect(m.suggest(invoice('Globex', 'steel beams', 9000)).map((s) => s.tagId)).not.toContain('materials');
});

it('features keep fields apart and drop bare numbers', () => {
  expect(words('Invoice 2026-001 Café')).toEqual(['invoice', 'cafe']);
  const f = invoice('Acme', 'paper', 256);
  expect(f).toEqual(expect.arrayContaining(['seller:acme', 'line:paper', 'amt:8', 'cur:eur', 'type:invoice', 'unit:c62']));
  expect(contextFeatures({ seller: 'Acme', lines: [{ description: 'Paper' }], project: 'Apollo', amount: 256 })).toEqual(expect.arrayContaining(['seller:acme', 'line:paper', 'ctx:apollo', 'amt:8']));
});
