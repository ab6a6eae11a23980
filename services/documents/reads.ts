/**
 * Lists and search: one parameterised statement (server-side bind parameters) over the list
 * columns, filters compiled from the predicate tree (search.ts), keyset cursors.
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { encodeCursor, readPageRequest, type Page } from '../shared/pagination.ts';
import { Document } from './document.entity.ts';
import { SearchError, afterCursor, compileFilters, cursorValues, orderBy, parseSort } from './search.ts';
import { documentView } from './document-views.ts';
import { pure } from './document-errors.ts';
import type { DocumentView, ListParams } from './documents.contract.ts';
import { likeContaining } from '../shared/pg-text.ts';

const LIST_COLUMNS = [
  'id', 'organization_id', 'company_id', 'livemode', 'direction', 'type', 'document_subtype', 'format', 'number', 'issue_date', 'due_date',
  'currency', 'total_amount', 'seller_key', 'sender_peppol_id', 'sender_name', 'receiver_peppol_id', 'receiver_name', 'recipient', 'metadata',
  'status', 'lifecycle_code', 'lifecycle', 'delivery_status', 'connector_id', 'connector_message_id', 'delivery_attempts', 'next_attempt_at',
  'error_code', 'error_message', 'sent_at', 'delivered_at', 'counterpart_id', 'original_content_type', 'original_filename', 'file_id',
  'stored_format', 'xml_syntax', 'has_pdf', 'pdf_copy', 'clearance_status', 'read_at', 'archived_at', 'notes', 'related_document_ids', 'duplicate_of', 'instance_identifier', 'validation', 'created_at', 'updated_at',
].map((c) => `"${c}"`).join(', ')
  + ', ("original_sha256" is not null or "original_content" is not null) as "has_original", ("xml" is not null) as "has_xml", ("normalized" is not null) as "has_json"'
  // The clearance without its heavy parts (receipt, signed original): flags say whether they exist.
  + `, ("clearance" - 'receipt' - 'legalOriginal') as "clearance", coalesce(jsonb_exists("clearance", 'receipt'), false) as "has_clearance_receipt"`
  + `, coalesce(jsonb_exists("clearance", 'legalOriginal'), false) as "has_clearance_original"`;

/** Runs one parameterised statement with server-side bind parameters ($1…), never inlined values. */
async function runBound(em: EntityManager, sqlText: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  let n = 0;
  const text = sqlText.replace(/\?/g, () => `$${++n}`);
  const compiled = { sql: text, parameters: params, query: { kind: 'RawNode', sqlFragments: [text], parameters: [] }, queryId: { queryId: 'documents-search' } };
  const res = await em.getKysely().executeQuery(compiled as never);
  return res.rows as Array<Record<string, unknown>>;
}

export interface SearchInput {
  filters?: unknown;
  sort?: unknown;
  query?: string;
  limit?: number;
  cursor?: string | number;
}

/** Builds the statement of a search (exported for the benchmark and the injection test). */
export function buildSearchSql(auth: Pick<Principal, 'organizationId' | 'livemode' | 'companyId'>, input: SearchInput): { sql: string; params: unknown[]; limit: number; keys: ReturnType<typeof parseSort> } {
  const params: unknown[] = [auth.organizationId, auth.livemode];
  let where = '"organization_id" = ? and "livemode" = ?';
  if (auth.companyId) { where += ' and "company_id" = ?'; params.push(auth.companyId); }
  const compiled = compileFilters(input.filters, params);
  if (compiled.sql !== 'true') where += ` and (${compiled.sql})`;
  if (input.query && input.query.trim()) {
    const like = likeContaining(input.query.trim());
    where += ` and ("number" ilike ? escape '\\' or "sender_name" ilike ? escape '\\' or "receiver_name" ilike ? escape '\\')`;
    params.push(like, like, like);
  }
  const keys = parseSort(input.sort);
  const page = readPageRequest({ ...(input.limit !== undefined ? { limit: input.limit } : {}), ...(input.cursor !== undefined ? { cursor: String(input.cursor) } : {}) });
  if (page.after !== undefined) {
    let values: unknown;
    try { values = JSON.parse(page.after); } catch { values = undefined; }
    if (!Array.isArray(values)) throw new SearchError('cursor', 'cursor', 'The cursor is not valid; pass the cursor of a previous page or omit it');
    where += ` and ${afterCursor(keys, values, params)}`;
  }
  params.push(page.limit + 1);
  return { sql: `select ${LIST_COLUMNS} from "documents" where ${where} order by ${orderBy(keys)} limit ?`, params, limit: page.limit, keys };
}

export async function runSearch(ctx: Context, input: SearchInput): Promise<Page<DocumentView>> {
  const auth = principalOf(ctx);
  const em = emOf(ctx);
  const built = pure(() => buildSearchSql(auth, input));
  const rows = await runBound(em, built.sql, built.params);
  const hasMore = rows.length > built.limit;
  const visible = hasMore ? rows.slice(0, built.limit) : rows;
  const last = visible.at(-1);
  return {
    data: visible.map((r) => documentView(em.map(Document, r), {
      original: r.has_original === true, xml: r.has_xml === true, json: r.has_json === true,
      clearanceReceipt: r.has_clearance_receipt === true, clearanceOriginal: r.has_clearance_original === true,
    })),
    hasMore,
    cursor: hasMore && last ? encodeCursor(JSON.stringify(cursorValues(built.keys, last))) : null,
  };
}

/** GET /v1/documents: its query filters as a predicate tree for the same search. */
export async function listDocuments(ctx: Context<ListParams>): Promise<Page<DocumentView>> {
  const p = ctx.params;
  const filters: Record<string, unknown>[] = [];
  if (p.companyId) filters.push({ companyId: p.companyId });
  if (p.type) filters.push({ type: p.type });
  if (p.status) filters.push({ status: p.status });
  if (p.direction) filters.push({ direction: p.direction });
  if (p.duplicate !== undefined) filters.push({ duplicate: p.duplicate });
  if (p.from) filters.push({ issueDate: { $gte: p.from } });
  if (p.to) filters.push({ issueDate: { $lte: p.to } });
  if (p.amountMin !== undefined) filters.push({ totalAmount: { $gte: p.amountMin } });
  if (p.amountMax !== undefined) filters.push({ totalAmount: { $lte: p.amountMax } });
  return runSearch(ctx, { filters: filters.length ? { $and: filters } : undefined, ...(p.limit !== undefined ? { limit: p.limit } : {}), ...(p.cursor !== undefined ? { cursor: p.cursor } : {}) });
}
