/**
 * `einv tail events`: follows the event log (GET /v1/events, newest first) by polling, printing
 * each new event once, oldest first, as one line (`--json`: the event as JSON). `--max n` stops
 * after n events; without it, it runs until interrupted.
 */
import type { paths } from '../typescript/src/index.ts';
import { describeApiError, UsageError, type CliContext } from './context.ts';

type EventRecord = paths['/v1/events']['get']['responses'][200]['content']['application/json']['data'][number];

export interface TailOptions { type?: string; interval?: string; max?: string; json?: boolean; history?: string }

/** Pages read per poll at most: a burst larger than this is shown from its newest part. */
const MAX_PAGES_PER_POLL = 10;

function line(e: EventRecord): string {
  const d = e.data as Record<string, unknown>;
  const subject = ['documentId', 'id', 'number'].map((k) => d[k]).filter((v) => typeof v === 'string').join(' ');
  return `${e.createdAt}  ${e.type.padEnd(24)} ${e.id}  ${subject}`;
}

export async function tailEventsCommand(ctx: CliContext, options: TailOptions): Promise<number> {
  const api = ctx.client();
  const intervalMs = Math.max(200, Number(options.interval ?? 1000) || 1000);
  const max = options.max !== undefined ? Number(options.max) : Infinity;
  const history = Math.min(100, Math.max(0, Number(options.history ?? 10) || 0));
  let seen: string | undefined;
  let printed = 0;
  let first = true;
  for (;;) {
    const fresh: EventRecord[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_POLL; page++) {
      const { data, error, response } = await api.GET('/v1/events', { params: { query: { limit: first ? Math.max(1, history) : 100, ...(options.type ? { type: options.type } : {}), ...(cursor ? { cursor } : {}) } } });
      if (!data) throw new UsageError(`cannot read the event log: ${describeApiError(error, response.status)}`);
      // Event ids are ULIDs: a later event has a greater id.
      const newer = data.data.filter((e) => seen === undefined || e.id > seen);
      fresh.push(...newer);
      if (first || newer.length < data.data.length || !data.hasMore || !data.cursor) break;
      cursor = data.cursor;
    }
    const shown = first ? fresh.slice(0, history) : fresh;
    first = false;
    if (fresh[0]) seen = fresh.reduce((m, e) => (e.id > m ? e.id : m), seen ?? fresh[0].id);
    for (const e of shown.reverse()) {
      process.stdout.write(`${options.json ? JSON.stringify(e) : line(e)}\n`);
      if (++printed >= max) return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
