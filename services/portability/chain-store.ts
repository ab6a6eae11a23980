/**
 * Reading and growing a request's evidence chain in PostgreSQL. A row is appended under a lock of
 * its request (`FOR UPDATE`), after the caller decided on the rows as they are at that moment, so
 * two readers that both see the objection window lapse write one `tacit.accepted`, and a second
 * signature is refused rather than chained. The request's head (last seq and hash) moves in the
 * same transaction as the row. Nothing here calls out of the database.
 */
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { nextRow, type EvidenceRowData, type JsonValue } from './evidence-chain.ts';
import { PortabilityEvidence, PortabilityRequest } from './portability.entity.ts';
import { scheduleJobs, type JobInput } from '../shared/scheduler/scheduler.ts';

export type RowPayload = { [key: string]: JsonValue };

export async function loadRows(em: EntityManager, requestRef: string): Promise<EvidenceRowData[]> {
  const rows = await em.find(PortabilityEvidence, { requestRef }, { orderBy: { seq: 'asc' }, disableIdentityMap: true });
  return rows.map((r) => ({
    requestRef: r.requestRef, seq: r.seq, kind: r.kind, payload: r.payload as RowPayload,
    recordedAt: r.recordedAt.toISOString(), previousHash: r.previousHash, hash: r.hash,
  }));
}

/**
 * The request (its head) and its rows as of one moment: one REPEATABLE READ snapshot, read only.
 * Read separately, a row another reader appends in between would sit past the head read before it
 * (or the head past the rows) and the walk would call an intact chain broken.
 */
export async function loadChain(em: EntityManager, requestRef: string): Promise<{ request: PortabilityRequest; rows: EvidenceRowData[] } | null> {
  return em.fork().transactional(async (tx) => {
    const request = await tx.findOne(PortabilityRequest, { requestRef }, { disableIdentityMap: true });
    return request ? { request, rows: await loadRows(tx, requestRef) } : null;
  }, { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

function insertRow(tx: EntityManager, row: EvidenceRowData): void {
  tx.create(PortabilityEvidence, {
    requestRef: row.requestRef, seq: row.seq, kind: row.kind, payload: row.payload, recordedAt: new Date(row.recordedAt), previousHash: row.previousHash, hash: row.hash,
  });
}

/** A new request with the first rows of its chain and its wake-ups (scheduled jobs), in one transaction. */
export async function createChain(
  em: EntityManager,
  request: { requestRef: string; organizationId: string; livemode: boolean; clockCompanyId: string | null; siren: string | null },
  facts: Array<{ kind: string; payload: RowPayload }>,
  at: Date,
  jobs: JobInput[] = [],
): Promise<void> {
  await em.transactional(async (tx) => {
    let previous: EvidenceRowData | undefined;
    const rows = facts.map((f) => (previous = nextRow(previous, request.requestRef, f.kind, f.payload, at)));
    tx.create(PortabilityRequest, { ...request, headSeq: previous!.seq, headHash: previous!.hash, createdAt: at });
    await tx.flush();
    for (const row of rows) insertRow(tx, row);
    scheduleJobs(tx, jobs);
  });
}

export interface AppendDecision {
  kind: string;
  payload: RowPayload;
  /** Runs in the same transaction before the row is written (a file stored with its signature). */
  alongside?: (tx: EntityManager) => void;
}

/**
 * Locks the request, reads its rows, lets `decide` choose a fact to append (or none), and chains it.
 * Returns what `decide` returned, or null when it appended nothing.
 */
export async function appendUnderLock(
  em: EntityManager,
  requestRef: string,
  at: Date,
  decide: (rows: EvidenceRowData[]) => AppendDecision | null,
): Promise<AppendDecision | null> {
  return em.fork().transactional(async (tx) => {
    // tx.execute runs in the transaction (the connection's execute would take another pooled one and lock nothing).
    const locked = await tx.execute<Array<{ head_seq: number; head_hash: string }>>(
      'select head_seq, head_hash from portability_requests where request_ref = ? for update', [requestRef],
    );
    const head = locked[0];
    if (!head) return null;
    const decision = decide(await loadRows(tx, requestRef));
    if (!decision) return null;
    const row = nextRow({ seq: Number(head.head_seq), hash: head.head_hash }, requestRef, decision.kind, decision.payload, at);
    decision.alongside?.(tx);
    insertRow(tx, row);
    await tx.execute('update portability_requests set head_seq = ?, head_hash = ? where request_ref = ?', [row.seq, row.hash, requestRef]);
    return decision;
  });
}
