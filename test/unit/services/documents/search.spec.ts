/**
 * The search compiler: predicate trees to parameterised SQL (values only in the bindings), the
 * operator table, sort forms and keyset cursors.
 */
import { compileFilters, parseSort, orderBy, afterCursor, SearchError, LEAF_OPERATORS } from '../../../../services/documents/search.ts';

describe('compileFilters', () => {
  it('bare scalars are $eq, bare arrays $in, objects hold operators; nested $and/$or to any depth', () => {
    const c = compileFilters({ type: 'invoice', status: ['sent', 'paid'], $or: [{ totalAmount: { $gte: 100, $lt: 500 } }, { $and: [{ number: { $contains: 'INV' } }, { $or: [{ currency: { $ne: 'EUR' } }, { dueDate: { $null: true } }] }] }] });
    expect(c.sql).toBe('"type" = ? and "status" in (?, ?) and (("total_amount" >= ? and "total_amount" < ?) or ((("number" ilike ? escape \'\\\') and (((("currency" <> ? or "currency" is null)) or ("due_date" is null))))))');
    expect(c.params).toEqual(['invoice', 'sent', 'paid', 100, 500, '%INV%', 'EUR']);
  });

  it.each([
    [{ number: { $eq: 'A' } }, '"number" = ?', ['A']],
    [{ number: { $ne: 'A' } }, '("number" <> ? or "number" is null)', ['A']],
    [{ totalAmount: { $lt: 1 } }, '"total_amount" < ?', [1]],
    [{ totalAmount: { $lte: '2.5' } }, '"total_amount" <= ?', [2.5]],
    [{ issueDate: { $gt: '2026-01-01' } }, '"issue_date" > ?', ['2026-01-01']],
    [{ issueDate: { $gte: '2026-01-01' } }, '"issue_date" >= ?', ['2026-01-01']],
    [{ senderName: { $contains: '50%_off\\' } }, '"sender_name" ilike ? escape \'\\\'', ['%50\\%\\_off\\\\%']],
    [{ senderName: { $notContains: 'x' } }, '("sender_name" not ilike ? escape \'\\\' or "sender_name" is null)', ['%x%']],
    [{ type: { $in: ['a', 'b'] } }, '"type" in (?, ?)', ['a', 'b']],
    [{ type: { $notIn: ['a'] } }, '("type" not in (?) or "type" is null)', ['a']],
    [{ dueDate: { $null: true } }, '"due_date" is null', []],
    [{ dueDate: { $notNull: true } }, '"due_date" is not null', []],
    [{ read: false }, '("read_at" is not null) = ?', [false]],
  ] as const)('%j → %s', (tree, sql, params) => {
    expect(compileFilters(tree)).toEqual({ sql, params });
  });

  it('values never enter the SQL text, whatever they contain', () => {
    const hostile = "x' or 1=1; drop table documents; --";
    const c = compileFilters({ number: hostile, $or: [{ senderName: { $contains: hostile } }, { type: { $in: [hostile] } }] });
    expect(c.sql).not.toContain('drop');
    expect(c.sql).not.toContain("'x");
    expect(c.params).toContain(hostile);
  });

  it('refuses an unsupported operator, naming it and listing the accepted ones', () => {
    for (const tree of [{ number: { $regex: 'a' } }, { $not: [{ type: 'invoice' }] }, { $nor: [] }]) {
      try {
        compileFilters(tree);
        throw new Error('expected a SearchError');
      } catch (err) {
        expect(err).toBeInstanceOf(SearchError);
        expect((err as Error).message).toMatch(/Unsupported operator '\$(regex|not|nor)'/);
        for (const op of LEAF_OPERATORS) expect((err as Error).message).toContain(op);
      }
    }
  });

  it('companyId takes $eq only; unknown fields, column names as keys and bad values are refused', () => {
    expect(compileFilters({ companyId: 'comp_1' })).toEqual({ sql: '"company_id" = ?', params: ['comp_1'] });
    expect(() => compileFilters({ companyId: { $in: ['a', 'b'] } })).toThrow(/companyId accepts only \$eq/);
    expect(() => compileFilters({ companyId: ['a', 'b'] })).toThrow(/companyId accepts only \$eq/);
    expect(() => compileFilters({ 'organization_id': 'org_x' })).toThrow(/Unknown search field/);
    expect(() => compileFilters({ '"id" = "id" or 1=1 --': 'x' })).toThrow(/Unknown search field/);
    expect(() => compileFilters({ totalAmount: { $gt: 'lots' } })).toThrow(/must be a number/);
    expect(() => compileFilters({ issueDate: { $gt: '1 Jan' } })).toThrow(/must be a date/);
    expect(() => compileFilters({ $and: [] })).toThrow(/non-empty array/);
    expect(() => compileFilters({ totalAmount: { $contains: '1' } })).toThrow(/text fields only/);
  });

  it('nests to depth 32 and refuses deeper trees', () => {
    let tree: Record<string, unknown> = { type: 'invoice' };
    for (let i = 0; i < 31; i++) tree = { $and: [tree] };
    expect(() => compileFilters(tree)).not.toThrow();
    for (let i = 0; i < 3; i++) tree = { $or: [tree] };
    expect(() => compileFilters(tree)).toThrow(/deeper than 32/);
  });
});

describe('sort', () => {
  it('accepts a map, a field:dir string and a mixed list, left to right, ending on id', () => {
    expect(parseSort({ totalAmount: 'desc' }).map((k) => `${k.field}:${k.dir}`)).toEqual(['totalAmount:desc', 'id:desc']);
    expect(parseSort('issueDate:asc').map((k) => `${k.field}:${k.dir}`)).toEqual(['issueDate:asc', 'id:asc']);
    expect(parseSort(['number:asc', { totalAmount: 'desc' }, 'issueDate']).map((k) => `${k.field}:${k.dir}`)).toEqual(['number:asc', 'totalAmount:desc', 'issueDate:asc', 'id:asc']);
    expect(parseSort(undefined).map((k) => `${k.field}:${k.dir}`)).toEqual(['id:desc']);
    expect(orderBy(parseSort({ totalAmount: 'desc' }))).toBe('coalesce("total_amount", -1e15) desc, "id" desc');
    expect(() => parseSort('number:sideways')).toThrow(/asc or desc/);
    expect(() => parseSort({ 'id; drop table x': 'asc' })).toThrow(/Unknown search field/);
  });

  it('the cursor condition is an expanded OR chain with its values bound', () => {
    const params: unknown[] = [];
    const keys = parseSort(['totalAmount:desc', 'number:asc']);
    expect(afterCursor(keys, [10, 'A', 'doc_1'], params)).toBe('((coalesce("total_amount", -1e15) < ?) or (coalesce("total_amount", -1e15) = ? and coalesce("number", \'\') > ?) or (coalesce("total_amount", -1e15) = ? and coalesce("number", \'\') = ? and "id" > ?))');
    expect(params).toEqual([10, 10, 'A', 10, 'A', 'doc_1']);
    expect(() => afterCursor(keys, [1], [])).toThrow(/cursor/);
  });
});
