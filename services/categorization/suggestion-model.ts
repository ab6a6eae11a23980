/**
 * Tag suggestion learned from an organization's own tagging history: TF-IDF weighted k-nearest
 * neighbours over the objects it tagged (features.ts tokens), multi-label (each neighbour votes for
 * every tag it carries). Nothing is hard-coded: with no history there is nothing to suggest.
 *
 * Incremental: `add` and `remove` update the examples, the document frequencies and an inverted
 * index in place; only the example norms (which depend on every IDF) are refreshed lazily, one
 * linear pass before the next query after a change. Pure and in memory; the service rebuilds it
 * from the taggings table when another replica changed the history.
 */

export interface Suggestion {
  tagId: string;
  /** Mean similarity-weighted vote of the nearest neighbours for the tag, 0 to 1: near 1 when the object closely resembles objects that all carry it. */
  confidence: number;
}

/** Neighbours less similar than this (cosine) do not vote: sharing a currency is not resemblance. */
const MIN_SIMILARITY = 0.1;

interface Example {
  tf: Map<string, number>;
  tags: Set<string>;
  norm: number;
}

export interface SuggestOptions {
  /** Neighbours that vote (default 15). */
  k?: number;
  /** Most suggestions returned (default 10). */
  limit?: number;
  /** Tags not to suggest (those already on the object). */
  exclude?: ReadonlySet<string>;
}

export class TagSuggestionModel {
  private readonly examples = new Map<string, Example>();
  private readonly df = new Map<string, number>();
  private readonly postings = new Map<string, Set<string>>();
  private normsStale = true;

  /** Objects in the history. */
  get size(): number {
    return this.examples.size;
  }

  /** Records that `objectId` (with these features) carries `tagId`. Its first features stay its features. */
  add(objectId: string, features: readonly string[], tagId: string): void {
    const known = this.examples.get(objectId);
    if (known) { known.tags.add(tagId); return; }
    const tf = new Map<string, number>();
    for (const t of features) tf.set(t, (tf.get(t) ?? 0) + 1);
    this.examples.set(objectId, { tf, tags: new Set([tagId]), norm: 0 });
    for (const token of tf.keys()) {
      this.df.set(token, (this.df.get(token) ?? 0) + 1);
      let list = this.postings.get(token);
      if (!list) this.postings.set(token, (list = new Set()));
      list.add(objectId);
    }
    this.normsStale = true;
  }

  /** Forgets that `objectId` carries `tagId` (and the object, once it carries no tag). */
  remove(objectId: string, tagId: string): void {
    const example = this.examples.get(objectId);
    if (!example) return;
    example.tags.delete(tagId);
    if (example.tags.size) return;
    this.examples.delete(objectId);
    for (const token of example.tf.keys()) {
      const n = (this.df.get(token) ?? 1) - 1;
      if (n > 0) this.df.set(token, n); else this.df.delete(token);
      this.postings.get(token)?.delete(objectId);
      if (this.postings.get(token)?.size === 0) this.postings.delete(token);
    }
    this.normsStale = true;
  }

  /** A token every tagged object has (the organization's own name, its currency) weighs next to nothing; a rare one a lot. */
  private idf(token: string): number {
    return Math.log((this.examples.size + 1) / ((this.df.get(token) ?? 0) + 0.5));
  }

  private weight(tf: number, token: string): number {
    return (1 + Math.log(tf)) * this.idf(token);
  }

  private refreshNorms(): void {
    if (!this.normsStale) return;
    for (const example of this.examples.values()) {
      let sum = 0;
      for (const [token, tf] of example.tf) sum += this.weight(tf, token) ** 2;
      example.norm = Math.sqrt(sum);
    }
    this.normsStale = false;
  }

  /** Tags ranked by confidence; empty when the history is empty or nothing in it resembles the object. */
  suggest(features: readonly string[], options: SuggestOptions = {}): Suggestion[] {
    if (this.examples.size === 0 || features.length === 0) return [];
    this.refreshNorms();
    const k = options.k ?? 15;
    const query = new Map<string, number>();
    for (const t of features) query.set(t, (query.get(t) ?? 0) + 1);
    let queryNorm = 0;
    const dots = new Map<string, number>();
    for (const [token, tf] of query) {
      const wq = this.weight(tf, token);
      queryNorm += wq * wq;
      for (const objectId of this.postings.get(token) ?? []) {
        const example = this.examples.get(objectId)!;
        dots.set(objectId, (dots.get(objectId) ?? 0) + wq * this.weight(example.tf.get(token)!, token));
      }
    }
    queryNorm = Math.sqrt(queryNorm);
    const neighbours = [...dots]
      .map(([objectId, dot]) => ({ objectId, similarity: dot / (queryNorm * this.examples.get(objectId)!.norm || 1) }))
      .filter((n) => n.similarity >= MIN_SIMILARITY)
      .sort((a, b) => b.similarity - a.similarity || (a.objectId < b.objectId ? -1 : 1))
      .slice(0, k);
    if (!neighbours.length) return [];
    const votes = new Map<string, number>();
    for (const n of neighbours) {
      for (const tagId of this.examples.get(n.objectId)!.tags) {
        if (!options.exclude?.has(tagId)) votes.set(tagId, (votes.get(tagId) ?? 0) + n.similarity);
      }
    }
    return [...votes]
      .map(([tagId, score]) => ({ tagId, confidence: Math.round((score / neighbours.length) * 10_000) / 10_000 }))
      .sort((a, b) => b.confidence - a.confidence || (a.tagId < b.tagId ? -1 : 1))
      .slice(0, options.limit ?? 10);
  }
}
