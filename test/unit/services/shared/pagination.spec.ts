import { encodeCursor, readPageRequest, toPage, DEFAULT_LIMIT } from '../../../../services/shared/pagination.ts';
import { DomainError } from '../../../../services/shared/errors.ts';

describe('cursor pagination', () => {
  it('defaults to 20 and round-trips an opaque cursor', () => {
    expect(readPageRequest({})).toEqual({ limit: DEFAULT_LIMIT, after: undefined });
    const cursor = encodeCursor('key_01ABC');
    expect(cursor).not.toContain('key_01ABC');
    expect(readPageRequest({ limit: 5, cursor })).toEqual({ limit: 5, after: 'key_01ABC' });
  });

  it('treats a negative cursor as the first page and anything foreign as a 400', () => {
    expect(readPageRequest({ cursor: '-1' }).after).toBeUndefined();
    expect(readPageRequest({ cursor: '-250' }).after).toBeUndefined();
    for (const bad of ['garbage', encodeURIComponent('{"k":1}'), Buffer.from('{"x":"y"}').toString('base64url'), '12']) {
      expect(() => readPageRequest({ cursor: bad })).toThrow(DomainError);
    }
  });

  it('builds pages from limit+1 rows: hasMore and the cursor of the last visible row', () => {
    const rows = ['a', 'b', 'c', 'd'];
    const page = toPage(rows, { limit: 3, after: undefined }, (r) => r, (r) => r.toUpperCase());
    expect(page).toEqual({ data: ['A', 'B', 'C'], hasMore: true, cursor: encodeCursor('c') });
    expect(toPage(['a'], { limit: 3, after: undefined }, (r) => r, (r) => r)).toEqual({ data: ['a'], hasMore: false, cursor: null });
  });
});
