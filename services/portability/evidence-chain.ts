/**
 * The evidence chain of a portability request: every fact (the request, a message of the other
 * platform, a signature, a transition observed on read) is one row, and each row's hash covers its
 * canonical content and the previous row's hash. The request's state is never stored: it is folded
 * from these rows on every read (fold.ts), so what the API says can always be shown from the rows.
 *
 * Verification walks seq 1..head (the head is kept with the request): the first seq whose row is
 * missing, whose link does not name the previous row's hash, or whose content no longer hashes to
 * its stored hash is `brokenAt`. Any change to one column of one row is caught at that row: content
 * columns change the recomputed hash, `hash` and `previous_hash` break the link, `seq` and
 * `request_ref` take the row out of its place (the walk finds a hole there).
 */
import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface EvidenceRowContent {
  requestRef: string;
  seq: number;
  kind: string;
  payload: { [key: string]: JsonValue };
  /** ISO 8601 with milliseconds (the column keeps milliseconds). */
  recordedAt: string;
  previousHash: string;
}

export interface EvidenceRowData extends EvidenceRowContent {
  hash: string;
}

/**
 * JSON with object keys sorted at every level and no whitespace: the same value always gives the
 * same bytes, whatever order PostgreSQL's jsonb hands keys back in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

export function rowHash(row: EvidenceRowContent): string {
  return sha256Hex(canonicalJson({ requestRef: row.requestRef, seq: row.seq, kind: row.kind, payload: row.payload, recordedAt: row.recordedAt, previousHash: row.previousHash }));
}

export interface ChainVerification {
  intact: boolean;
  /** Rows the chain should hold (its head). */
  length: number;
  /** The first seq that does not verify; null when intact. */
  brokenAt: number | null;
}

export function verifyChain(rows: readonly EvidenceRowData[], headSeq: number): ChainVerification {
  const bySeq = new Map<number, EvidenceRowData>();
  for (const r of rows) if (!bySeq.has(r.seq)) bySeq.set(r.seq, r);
  let previous = GENESIS_HASH;
  for (let seq = 1; seq <= headSeq; seq++) {
    const row = bySeq.get(seq);
    if (!row || row.previousHash !== previous || rowHash(row) !== row.hash) return { intact: false, length: headSeq, brokenAt: seq };
    previous = row.hash;
  }
  // A row past the head (or a second chain under this ref) is not part of the record.
  const stray = rows.find((r) => r.seq < 1 || r.seq > headSeq);
  if (stray) return { intact: false, length: headSeq, brokenAt: Math.min(Math.max(stray.seq, 1), headSeq + 1) };
  return { intact: true, length: headSeq, brokenAt: null };
}

/** The digest of the chain's manifest (each row's seq, kind and hash, in order): one value to quote. */
export function manifestSha256(rows: readonly EvidenceRowData[]): string {
  return sha256Hex(canonicalJson([...rows].sort((a, b) => a.seq - b.seq).map((r) => ({ seq: r.seq, kind: r.kind, hash: r.hash }))));
}

export function nextRow(previous: { seq: number; hash: string } | undefined, requestRef: string, kind: string, payload: { [key: string]: JsonValue }, recordedAt: Date): EvidenceRowData {
  const content: EvidenceRowContent = {
    requestRef, seq: (previous?.seq ?? 0) + 1, kind, payload, recordedAt: recordedAt.toISOString(), previousHash: previous?.hash ?? GENESIS_HASH,
  };
  return { ...content, hash: rowHash(content) };
}
