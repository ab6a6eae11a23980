/**
 * What the tag-suggestion model sees of an object: a bag of field-prefixed tokens (`seller:acme`,
 * `line:consulting`, `amt:8` …). Tokens of different fields stay apart, so a word in a line
 * description does not count as a seller's name. Pure, and bounded: at most MAX_TOKENS tokens per
 * object however long the document.
 */

export const MAX_TOKENS = 2000;

/** Lower-case words of a text without diacritics; numbers alone (invoice numbers, dates) say nothing of a tag. */
export function words(text: unknown): string[] {
  if (typeof text !== 'string' || !text) return [];
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2 && !/^\d+$/.test(w));
}

/** Order of magnitude of an amount (log2 bucket): invoices of similar size share it. */
export function amountBucket(amount: unknown): string | undefined {
  const n = typeof amount === 'number' ? amount : typeof amount === 'string' ? Number(amount) : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  return String(Math.round(Math.log2(n)));
}

class Bag {
  readonly tokens: string[] = [];
  add(prefix: string, values: Iterable<string>): void {
    for (const v of values) if (this.tokens.length < MAX_TOKENS) this.tokens.push(`${prefix}:${v}`);
  }
  text(prefix: string, text: unknown): void { this.add(prefix, words(text)); }
  one(prefix: string, value: unknown): void {
    if (typeof value === 'string' && value) this.add(prefix, [value.toLowerCase()]);
  }
  amount(value: unknown): void {
    const bucket = amountBucket(value);
    if (bucket) this.add('amt', [bucket]);
  }
}

export interface DocumentFacts {
  type: string;
  currency: string | null;
  totalAmount: number | null;
  from: { peppolId: string | null; name: string | null };
  to: Record<string, string | null>;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Lines of either the canonical model (`item.name`, `note`, `unit`) or the send JSON (`description`, `unit`). */
function addLines(bag: Bag, lines: unknown): void {
  for (const raw of arr(lines).slice(0, 500)) {
    const line = obj(raw);
    const item = obj(line.item);
    bag.text('line', item.name ?? line.description);
    bag.text('line', item.description ?? line.itemDescription);
    bag.text('line', line.note);
    bag.one('unit', line.unit);
    for (const c of arr(item.classifications)) bag.one('class', obj(c).value);
  }
}

/**
 * A document's tokens: type, seller (name words and id), buyer, currency, amount bucket, lines and
 * notes. `body` is its normalised JSON (canonical EN 16931 model), when it has one.
 */
export function documentFeatures(doc: DocumentFacts, body: Json | null): string[] {
  const bag = new Bag();
  bag.one('type', doc.type);
  bag.text('seller', doc.from.name ?? obj(body?.seller).name);
  bag.one('sellerid', doc.from.peppolId);
  bag.text('buyer', doc.to.name ?? obj(body?.buyer).name);
  bag.one('cur', doc.currency);
  bag.amount(doc.totalAmount);
  if (body) {
    for (const note of arr(body.notes)) bag.text('note', obj(note).text);
    bag.text('note', body.paymentTerms);
    bag.text('ref', body.buyerReference);
    bag.text('ref', body.projectReference);
    bag.text('ref', body.contractReference);
    bag.one('acct', body.buyerAccountingReference);
    addLines(bag, body.lines);
  }
  return bag.tokens;
}

/** A partner's or company's tokens: its name, country and role. */
export function partyFeatures(kind: 'partner' | 'company', party: { name: string | null; country: string | null; role?: string | null }): string[] {
  const bag = new Bag();
  bag.one('kind', kind);
  bag.text('seller', party.name);
  bag.one('ctry', party.country);
  bag.one('role', party.role ?? undefined);
  return bag.tokens;
}

/**
 * Tokens of the suggestion request's `context`: the same fields a document has when it names them
 * (`seller`, `buyer`, `lines`, `note`, `amount`/`totalAmount`, `currency`), any other text as `ctx:` words.
 */
export function contextFeatures(context: Json | undefined): string[] {
  if (!context) return [];
  const bag = new Bag();
  const known = new Set(['seller', 'buyer', 'lines', 'note', 'notes', 'amount', 'totalAmount', 'currency', 'type']);
  bag.text('seller', typeof context.seller === 'string' ? context.seller : obj(context.seller).name);
  bag.text('buyer', typeof context.buyer === 'string' ? context.buyer : obj(context.buyer).name);
  addLines(bag, context.lines);
  bag.text('note', context.note);
  for (const n of arr(context.notes)) bag.text('note', typeof n === 'string' ? n : obj(n).text);
  bag.amount(context.totalAmount ?? context.amount);
  bag.one('cur', context.currency);
  bag.one('type', context.type);
  for (const [key, value] of Object.entries(context)) {
    if (!known.has(key) && typeof value === 'string') bag.text('ctx', value);
  }
  return bag.tokens;
}
