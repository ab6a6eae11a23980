/**
 * Cursor pagination shared by every list: `limit` (default 20, max 100) and an opaque `cursor`;
 * responses are `{data, hasMore, cursor}`. The cursor is the base64url of the last row's sort key,
 * so pages stay stable while rows are inserted (keyset pagination, no OFFSET).
 */
import { DomainError } from './errors.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  cursor: string | null;
}

export interface PageRequest {
  limit: number;
  /** Sort key of the last row already seen; undefined for the first page. */
  after: string | undefined;
}

/** fastest-validator fields that every list action accepts (query strings, hence `convert`). */
export const PAGE_PARAMS = {
  limit: { type: 'number', integer: true, min: 1, max: MAX_LIMIT, convert: true, optional: true },
  cursor: { type: 'string', optional: true, max: 512 },
} as const;

export function encodeCursor(key: string): string {
  return Buffer.from(JSON.stringify({ k: key }), 'utf8').toString('base64url');
}

/**
 * Reads `limit` and `cursor`. A negative number as cursor means "from the start" (the spec says a
 * negative cursor is the first page); anything else that is not a cursor of ours is a 400.
 */
export function readPageRequest(params: { limit?: number; cursor?: string }): PageRequest {
  const limit = params.limit ?? DEFAULT_LIMIT;
  const raw = params.cursor;
  if (raw === undefined || raw === '' || /^-\d+$/.test(raw)) return { limit, after: undefined };
  try {
    const decoded: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (decoded && typeof decoded === 'object' && typeof (decoded as { k?: unknown }).k === 'string') {
      return { limit, after: (decoded as { k: string }).k };
    }
  } catch {
    /* fall through to the error below */
  }
  throw new DomainError('INVALID_REQUEST', 'The cursor is not valid; pass the cursor of a previous page or omit it', {
    details: [{ field: 'cursor', rule: 'cursor', message: 'Not a cursor returned by this API' }],
  });
}

/**
 * Builds a page from rows fetched with `limit + 1` (the extra row only tells whether more exist).
 */
export function toPage<Row, Out>(rows: Row[], request: PageRequest, keyOf: (row: Row) => string, present: (row: Row) => Out): Page<Out> {
  const hasMore = rows.length > request.limit;
  const visible = hasMore ? rows.slice(0, request.limit) : rows;
  const last = visible.at(-1);
  return { data: visible.map(present), hasMore, cursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

/** OpenAPI schema of a page of `item`. */
export function pageSchema(item: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['data', 'hasMore', 'cursor'],
    properties: { data: { type: 'array', items: item }, hasMore: { type: 'boolean' }, cursor: { type: ['string', 'null'] } },
  };
}
