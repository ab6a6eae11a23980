/**
 * Minimal streaming XML writer: text appended into 64 KB chunks joined once at the end, so rendering
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

/** Appended text is gathered in chunks of about this many characters before joining. */
const CHUNK = 1 << 16;

export class XmlWriter {
  private readonly parts: string[] = [];
  private current = '';

  constructor(declaration = true) {
    if (declaration) this.current = '<?xml version="1.0" encoding="UTF-8"?>\n';
  }

  /** Appends to the current chunk; a full chunk moves to the parts list (a few parts, not millions). */
  private push(text: string): void {
    this.current += text;
    if (this.current.length > CHUNK) {
      // Reading a character makes V8 flatten the chunk's rope of small appended strings into one
      // flat string; otherwise thousands of rope nodes per chunk live until the final join.
      this.current.charCodeAt(this.current.length >> 1);
      this.parts.push(this.current);
      this.current = '';
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
    return this.parts.join('') + this.current;
  }
}
