/**
 * Document search: the predicate tree of `POST /v1/documents/search` compiled to a parameterised
 * SQL condition (`?` placeholders, values only in the bindings list), plus sort and keyset
 * cursors. Column names come from a fixed field table, never from the request.
 */
import { likeContaining } from '../shared/pg-text.ts';

export const LEAF_OPERATORS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$contains', '$notContains', '$in', '$notIn', '$null', '$notNull'] as const;
export type LeafOperator = (typeof LEAF_OPERATORS)[number];
export const COMBINATORS = ['$and', '$or'] as const;

type FieldKind = 'string' | 'number' | 'date' | 'boolean' | 'timestamp';

interface Field {
  column: string;
  kind: FieldKind;
  /** Value a null sorts as (keeps keyset comparisons total). */
  nullAs: string;
  /** Only these operators (companyId: `$eq`). */
  only?: readonly LeafOperator[];
  /** Computed boolean: not null of this column. */
  flagOf?: string;
}

const str = (column: string, only?: readonly LeafOperator[]): Field => ({ column, kind: 'string', nullAs: "''", ...(only ? { only } : {}) });

/** Searchable and sortable fields, API name → column. */
export const SEARCH_FIELDS: Readonly<Record<string, Field>> = {
  id: str('id'),
  companyId: str('company_id', ['$eq']),
  type: str('type'),
  documentSubtype: str('document_subtype'),
  direction: str('direction'),
  format: str('format'),
  status: str('status'),
  deliveryStatus: str('delivery_status'),
  lifecycleCode: str('lifecycle_code'),
  number: str('number'),
  currency: str('currency'),
  senderName: str('sender_name'),
  receiverName: str('receiver_name'),
  senderPeppolId: str('sender_peppol_id'),
  receiverPeppolId: str('receiver_peppol_id'),
  issueDate: { column: 'issue_date', kind: 'date', nullAs: "''" },
  dueDate: { column: 'due_date', kind: 'date', nullAs: "''" },
  totalAmount: { column: 'total_amount', kind: 'number', nullAs: '-1e15' },
  createdAt: { column: 'created_at', kind: 'timestamp', nullAs: "'epoch'::timestamptz" },
  updatedAt: { column: 'updated_at', kind: 'timestamp', nullAs: "'epoch'::timestamptz" },
  read: { column: 'read_at', kind: 'boolean', nullAs: 'false', flagOf: 'read_at' },
  archived: { column: 'archived_at', kind: 'boolean', nullAs: 'false', flagOf: 'archived_at' },
  duplicateOf: str('duplicate_of'),
  duplicate: { column: 'duplicate_of', kind: 'boolean', nullAs: 'false', flagOf: 'duplicate_of' },
};
/** Aliases accepted for convenience. */
const ALIASES: Record<string, string> = { amount: 'totalAmount', total: 'totalAmount', date: 'issueDate' };

export class SearchError extends Error {
  readonly field: string;
  readonly rule: string;
  constructor(field: string, rule: string, message: string) {
    super(message);
    this.name = 'SearchError';
    this.field = field;
    this.rule = rule;
  }
}

export interface Compiled {
  sql: string;
  params: unknown[];
}

function fieldOf(name: string, path: string): Field {
  const f = SEARCH_FIELDS[ALIASES[name] ?? name];
  if (!f) throw new SearchError(path, 'field', `Unknown search field '${name}'; searchable fields: ${Object.keys(SEARCH_FIELDS).join(', ')}`);
  return f;
}

function expr(f: Field): string {
  return f.flagOf ? `("${f.flagOf}" is not null)` : `"${f.column}"`;
}

function scalar(f: Field, value: unknown, path: string): unknown {
  if (value === null || typeof value === 'object') throw new SearchError(path, 'scalar', `${path} must be a string, number or boolean`);
  switch (f.kind) {
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(n)) throw new SearchError(path, 'number', `${path} must be a number`);
      return n;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw new SearchError(path, 'boolean', `${path} must be true or false`);
      return value;
    case 'date':
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new SearchError(path, 'date', `${path} must be a date YYYY-MM-DD`);
      return value;
    case 'timestamp':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new SearchError(path, 'date', `${path} must be an ISO 8601 timestamp`);
      return new Date(value).toISOString();
    default:
      return String(value);
  }
}

function leaf(name: string, f: Field, op: string, value: unknown, path: string, params: unknown[]): string {
  if (!(LEAF_OPERATORS as readonly string[]).includes(op)) {
    throw new SearchError(path, 'operator', `Unsupported operator '${op}'; accepted operators: ${LEAF_OPERATORS.join(', ')} (combinators ${COMBINATORS.join(', ')})`);
  }
  if (f.only && !f.only.includes(op as LeafOperator)) {
    throw new SearchError(path, 'operator', `${name} accepts only ${f.only.join(', ')} (got '${op}')`);
  }
  const e = expr(f);
  const one = () => { params.push(scalar(f, value, path)); return '?'; };
  const list = () => {
    if (!Array.isArray(value) || value.length === 0) throw new SearchError(path, 'array', `${path} must be a non-empty array`);
    if (value.length > 1000) throw new SearchError(path, 'array', `${path} accepts at most 1000 values`);
    return value.map((v, i) => { params.push(scalar(f, v, `${path}[${i}]`)); return '?'; }).join(', ');
  };
  switch (op as LeafOperator) {
    case '$eq': if (value === null) return `${e} is null`; return `${e} = ${one()}`;
    case '$ne': if (value === null) return `${e} is not null`; return `(${e} <> ${one()} or ${e} is null)`;
    case '$lt': return `${e} < ${one()}`;
    case '$lte': return `${e} <= ${one()}`;
    case '$gt': return `${e} > ${one()}`;
    case '$gte': return `${e} >= ${one()}`;
    case '$contains':
    case '$notContains': {
      if (f.kind !== 'string') throw new SearchError(path, 'operator', `${op} applies to text fields only`);
      if (typeof value !== 'string') throw new SearchError(path, 'string', `${path} must be a string`);
      params.push(likeContaining(value));
      return op === '$contains' ? `${e} ilike ? escape '\\'` : `(${e} not ilike ? escape '\\' or ${e} is null)`;
    }
    case '$in': return `${e} in (${list()})`;
    case '$notIn': return `(${e} not in (${list()}) or ${e} is null)`;
    case '$null':
    case '$notNull': {
      if (typeof value !== 'boolean') throw new SearchError(path, 'boolean', `${path} must be true or false`);
      const isNull = (op === '$null') === value;
      return isNull ? `${e} is null` : `${e} is not null`;
    }
  }
}

const MAX_DEPTH = 32;

function node(tree: unknown, path: string, params: unknown[], depth: number): string {
  if (depth > MAX_DEPTH) throw new SearchError(path, 'depth', `filters nest deeper than ${MAX_DEPTH} levels`);
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) throw new SearchError(path, 'object', `${path} must be an object`);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(tree as Record<string, unknown>)) {
    const here = path ? `${path}.${key}` : key;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) throw new SearchError(here, 'array', `${key} takes a non-empty array of conditions`);
      const inner = value.map((v, i) => `(${node(v, `${here}[${i}]`, params, depth + 1)})`);
      parts.push(`(${inner.join(key === '$and' ? ' and ' : ' or ')})`);
      continue;
    }
    if (key.startsWith('$')) {
      throw new SearchError(here, 'operator', `Unsupported operator '${key}'; combinators: ${COMBINATORS.join(', ')}; accepted operators: ${LEAF_OPERATORS.join(', ')}`);
    }
    const f = fieldOf(key, here);
    if (Array.isArray(value)) parts.push(leaf(key, f, '$in', value, here, params));
    else if (value !== null && typeof value === 'object') {
      const ops = Object.entries(value as Record<string, unknown>);
      if (ops.length === 0) throw new SearchError(here, 'object', `${here} has no operator`);
      for (const [op, v] of ops) parts.push(leaf(key, f, op, v, `${here}.${op}`, params));
    } else parts.push(leaf(key, f, '$eq', value, here, params));
  }
  return parts.length ? parts.join(' and ') : 'true';
}

/** Compiles a filters tree to one SQL condition; `params` receives the bindings in order. */
export function compileFilters(tree: unknown, params: unknown[] = []): Compiled {
  if (tree === undefined || tree === null) return { sql: 'true', params };
  return { sql: node(tree, '', params, 0).replace(/^$/, 'true'), params };
}

export interface SortKey {
  field: string;
  column: string;
  /** SQL expression sorted on (nulls folded to a sentinel so the order is total). */
  expression: string;
  kind: FieldKind;
  dir: 'asc' | 'desc';
}

/** `sort`: a map, a `field:dir` string, or a list mixing both; left-to-right precedence. Ties end on id. */
export function parseSort(sort: unknown, defaultDir: 'asc' | 'desc' = 'desc'): SortKey[] {
  const keys: SortKey[] = [];
  const add = (name: string, dir: unknown, path: string) => {
    const d = String(dir ?? 'asc').toLowerCase();
    if (d !== 'asc' && d !== 'desc') throw new SearchError(path, 'sort', `sort direction must be asc or desc (got '${String(dir)}')`);
    const f = fieldOf(name.trim(), path);
    if (keys.some((k) => k.column === f.column)) return;
    const column = f.flagOf ?? f.column;
    const expression = f.flagOf ? `("${f.flagOf}" is not null)` : `coalesce("${f.column}", ${f.nullAs})`;
    keys.push({ field: ALIASES[name.trim()] ?? name.trim(), column, expression, kind: f.kind, dir: d });
  };
  const one = (item: unknown, path: string) => {
    if (typeof item === 'string') {
      for (const piece of item.split(',').filter((s) => s.trim())) {
        const [name, dir] = piece.split(':');
        add(name!, dir ?? 'asc', path);
      }
    } else if (item && typeof item === 'object' && !Array.isArray(item)) {
      for (const [name, dir] of Object.entries(item)) add(name, dir, `${path}.${name}`);
    } else throw new SearchError(path, 'sort', 'sort entries are {field: asc|desc} maps or field:dir strings');
  };
  if (Array.isArray(sort)) sort.forEach((s, i) => one(s, `sort[${i}]`));
  else if (sort !== undefined && sort !== null && sort !== '') one(sort, 'sort');
  const last = keys.at(-1)?.dir ?? defaultDir;
  if (!keys.some((k) => k.column === 'id')) keys.push({ field: 'id', column: 'id', expression: '"id"', kind: 'string', dir: keys.length ? last : defaultDir });
  return keys;
}

export function orderBy(keys: SortKey[]): string {
  return keys.map((k) => `${k.expression} ${k.dir}`).join(', ');
}

/** The values of a row's sort keys, as a cursor carries them. */
export function cursorValues(keys: SortKey[], row: Record<string, unknown>): unknown[] {
  return keys.map((k) => {
    const v = row[k.column];
    if (k.column === 'read_at' || k.column === 'archived_at') return v !== null && v !== undefined;
    if (v === null || v === undefined) return null;
    if (v instanceof Date) return v.toISOString();
    return k.kind === 'number' ? Number(v) : v;
  });
}

function sentinel(k: SortKey, v: unknown): unknown {
  if (v !== null) return v;
  return k.kind === 'number' ? -1e15 : k.kind === 'timestamp' ? new Date(0).toISOString() : k.kind === 'boolean' ? false : '';
}

/** Keyset condition "after the cursor row" for a mixed-direction sort (an expanded OR chain). */
export function afterCursor(keys: SortKey[], values: unknown[], params: unknown[]): string {
  if (values.length !== keys.length) throw new SearchError('cursor', 'cursor', 'The cursor does not belong to this sort; start from the first page');
  const ors: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const ands: string[] = [];
    for (let j = 0; j < i; j++) { ands.push(`${keys[j]!.expression} = ?`); params.push(sentinel(keys[j]!, values[j] as unknown)); }
    ands.push(`${keys[i]!.expression} ${keys[i]!.dir === 'asc' ? '>' : '<'} ?`);
    params.push(sentinel(keys[i]!, values[i] as unknown));
    ors.push(`(${ands.join(' and ')})`);
  }
  return `(${ors.join(' or ')})`;
}
