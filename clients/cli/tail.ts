/**
 * `einv tail events`: follows the event log (GET /v1/events, newest first) by polling, printing
 * each new event once, oldest first, as one line (`--json`: the event as JSON). `--max n` stops
 * after n events; without it, it runs until interrupted.
 *
 * Why a window and not a high-water mark: event ids are ULIDs taken when an event is written, but
 * transactions commit in their own order, so an event with a smaller id can appear in the log after
 * one with a greater id was already shown. Each poll therefore reads back over the last
 * `LOOKBACK_MS` of ids and prints whatever it has not printed yet; the ids seen in that window are
 * remembered, older ones forgotten.
 */
import { decodeTime } from 'ulid';
import type { paths } from '../typescript/src/index.ts';
import { describeApiError, UsageError, type CliContext } from './context.ts';

type EventRecord = paths['/v1/events']['get']['responses'][200]['content']['application/json']['data'][number];

export interface TailOptions { type?: string; interval?: string; max?: string; json?: boolean; history?: string }

/** Pages read per poll at most: a burst larger than this is shown from its newest part. */
const MAX_PAGES_PER_POLL = 10;
/** How far behind the newest id seen a late-committing event is still caught (far above any write transaction's length). */
const LOOKBACK_MS = 120_000;

function line(e: EventRecord): string {
  const d = e.data as Record<string, unknown>;
  const subject = ['documentId', 'id', 'number'].map((k) => d[k]).filter((v) => typeof v === 'string').join(' ');
  return `${e.createdAt}  ${e.type.padEnd(24)} ${e.id}  ${subject}`;
}

/** When the event was written: the time in its ULID (not `createdAt`, which a sandbox clock may move). */
function writtenAt(id: string): number {
  return decodeTime(id.slice(id.indexOf('_') + 1));
}

export async function tailEventsCommand(ctx: CliContext, options: TailOptions): Promise<number> {
  const api = ctx.client();
  const intervalMs = Math.max(200, Number(options.interval ?? 1000) || 1000);
  const max = options.max !== undefined ? Number(options.max) : Infinity;
  const history = Math.min(100, Math.max(0, Number(options.history ?? 10) || 0));
  /** Ids already read (printed, or part of the history before the tail began), with their write time. */
  const seen = new Map<string, number>();
  let newest = 0;
  let printed = 0;
  let first = true;
  for (;;) {
    const read: EventRecord[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_POLL; page++) {
      const { data, error, response } = await api.GET('/v1/events', { params: { query: { limit: 100, ...(options.type ? { type: options.type } : {}), ...(cursor ? { cursor } : {}) } } });
      if (!data) throw new UsageError(`cannot read the event log: ${describeApiError(error, response.status)}`);
      read.push(...data.data);
      const last = data.data[data.data.length - 1];
      // Back to the window's start (on the first poll, the window behind the newest event: all of it is history).
      const horizon = Math.max(newest, read[0] ? writtenAt(read[0].id) : 0) - LOOKBACK_MS;
      if (!last || writtenAt(last.id) < horizon || !data.hasMore || !data.cursor) break;
      cursor = data.cursor;
    }
    // Below the window an id may have been forgotten: it was read long ago, so it is not new.
    const fresh = read.filter((e) => !seen.has(e.id) && (first || writtenAt(e.id) >= newest - LOOKBACK_MS));
    for (const e of fresh) {
      const at = writtenAt(e.id);
      seen.set(e.id, at);
      if (at > newest) newest = at;
    }
    for (const [id, at] of seen) if (at < newest - LOOKBACK_MS) seen.delete(id);
    const shown = first ? fresh.slice(0, history) : fresh;
    first = false;
    // Newest first from the API; printed oldest first.
    for (const e of shown.sort((a, b) => (a.id < b.id ? -1 : 1))) {
      process.stdout.write(`${options.json ? JSON.stringify(e) : line(e)}\n`);
      if (++printed >= max) return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
