/**
 * Minimal streaming XML writer: pieces joined into flat chunks, chunks joined once at the end, so rendering
 * stays linear in the document size. Text and attribute values are always escaped here.
 */
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// XML 1.0 forbids most C0 controls even escaped; they are dropped rather than producing invalid XML.
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(value: string): string {
  return value.replace(INVALID_XML_CHARS, '').replace(/[&<>"']/g, (c) => TEXT_ESCAPES[c] ?? c);
}

export type Attrs = Record<string, string | undefined>;

/** Pieces gathered before they are joined into one flat chunk. */
const PIECES_PER_CHUNK = 4096;

export class XmlWriter {
  /** Flat chunks of the document so far. */
  private readonly chunks: string[] = [];
  /** Recent small pieces, joined into a chunk every PIECES_PER_CHUNK appends. */
  private pieces: string[] = [];

  constructor(declaration = true) {
    if (declaration) this.pieces.push('<?xml version="1.0" encoding="UTF-8"?>\n');
  }

  /**
   * Appends a piece. Joining every few thousand pieces keeps the live data a list of flat
   * strings: neither millions of tiny strings nor a rope of `+=` nodes survive until the end,
   * which is what makes the garbage collector's work grow faster than the document.
   */
  private push(text: string): void {
    this.pieces.push(text);
    if (this.pieces.length >= PIECES_PER_CHUNK) {
      this.chunks.push(this.pieces.join(''));
      this.pieces = [];
    }
  }

  private attrs(attrs?: Attrs): string {
    if (!attrs) return '';
    let s = '';
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined) s += ` ${k}="${escapeXml(v)}"`;
    return s;
  }

  open(name: string, attrs?: Attrs): this {
    this.push(`<${name}${this.attrs(attrs)}>`);
    return this;
  }

  close(name: string): this {
    this.push(`</${name}>`);
    return this;
  }

  /**
   * Appends a fragment serialised elsewhere, as is: the caller vouches it is well-formed XML in
   * scope of the enclosing namespaces (an XML signature computed over its own exact bytes).
   */
  raw(fragment: string): this {
    this.push(fragment);
    return this;
  }

  /** Writes `<name>value</name>` when value is defined; nothing otherwise. */
  leaf(name: string, value: string | undefined, attrs?: Attrs): this {
    if (value === undefined) return this;
    this.push(`<${name}${this.attrs(attrs)}>${escapeXml(value)}</${name}>`);
    return this;
  }

  /** Writes an element with children produced by `body`, only when `when` holds. */
  el(name: string, body: () => void, attrs?: Attrs, when = true): this {
    if (!when) return this;
    this.open(name, attrs);
    body();
    this.close(name);
    return this;
  }

  toString(): string {
    return this.chunks.join('') + this.pieces.join('');
  }
}
