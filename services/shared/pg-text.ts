/**
 * Strings PostgreSQL refuses in `text` and `jsonb`: the NUL character (error 08P01 / 22P05) and lone
 * UTF-16 surrogates (not valid UTF-8). Found before any SQL, so a hostile value gets a 400 naming its
 * field instead of a 500, and values we store for our own records (the request log) are cleaned.
 */

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * The dotted path of the first key or string value PostgreSQL would refuse (`document.lines[2].note`),
 * or undefined when every string is storable. Iterative, so a deeply nested value cannot overflow the stack.
 */
export function firstUnstorablePath(value: unknown, root = ''): string | undefined {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorable(v)) return path || '(value)';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const [k, child] of Object.entries(v)) {
        const childPath = path ? `${path}.${k}` : k;
        if (!isStorable(k)) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** The value with every unstorable character replaced by U+FFFD (keys included); other values unchanged. */
export function storable<T>(value: T): T {
  if (typeof value === 'string') return (isStorable(value) ? value : value.replace(UNSTORABLE_ALL, '\uFFFD')) as T;
  if (Array.isArray(value)) return value.map((v) => storable(v)) as T;
  if (value && typeof value === 'object' && !Buffer.isBuffer(value) && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  }
  return value;
}

/**
 * The text as a literal inside a LIKE / ILIKE pattern (`%`, `_` and `\` escaped with PostgreSQL's
 * default escape character), so a caller's search never becomes a wildcard.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE pattern that finds the text anywhere. */
export function likeContaining(text: string): string {
  return `%${likeLiteral(text)}%`;
}
