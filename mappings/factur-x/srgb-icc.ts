/**
 * The sRGB ICC profile a PDF/A output intent names (PDF/A-3 §6.2.3: a document that paints in
 * DeviceRGB carries one). No profile ships with Node or pdf-lib, and none of our dependencies
 * writes one, so it is built here from the published sRGB facts (IEC 61966-2-1): an ICC v2 display
 * ("mntr") matrix/TRC profile, primaries adapted to the D50 connection space, the sRGB transfer
 * curve sampled in 1024 steps. About 2.7 KB, always the same bytes. Pure.
 */

/** s15Fixed16Number (ICC.1 §5.1.3). */
function s15(value: number): number {
  return Math.round(value * 65536) | 0;
}

/** The sRGB transfer function (IEC 61966-2-1), encoded value → linear light. */
function srgbToLinear(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

const TRC_POINTS = 1024;
/** sRGB red, green, blue colorants and the media white, in the D50 PCS (Bradford-adapted, as the sRGB profiles publish them). */
const RED = [0.4360747, 0.2225045, 0.0139322] as const;
const GREEN = [0.3850649, 0.7168786, 0.0971045] as const;
const BLUE = [0.1430804, 0.0606169, 0.7141733] as const;
const D50 = [0.9642, 1.0, 0.8249] as const;

class Bytes {
  private readonly parts: Buffer[] = [];
  length = 0;
  push(buf: Buffer): void { this.parts.push(buf); this.length += buf.length; }
  u32(v: number): void { const b = Buffer.alloc(4); b.writeUInt32BE(v >>> 0); this.push(b); }
  i32(v: number): void { const b = Buffer.alloc(4); b.writeInt32BE(v); this.push(b); }
  u16(v: number): void { const b = Buffer.alloc(2); b.writeUInt16BE(v); this.push(b); }
  ascii(s: string): void { this.push(Buffer.from(s, 'latin1')); }
  pad(): void { while (this.length % 4) this.push(Buffer.alloc(1)); }
  bytes(): Buffer { return Buffer.concat(this.parts); }
}

function xyzTag(xyz: readonly [number, number, number]): Buffer {
  const b = new Bytes();
  b.ascii('XYZ '); b.u32(0);
  for (const v of xyz) b.i32(s15(v));
  return b.bytes();
}

function textTag(text: string): Buffer {
  const b = new Bytes();
  b.ascii('text'); b.u32(0); b.ascii(`${text}\0`); b.pad();
  return b.bytes();
}

/** textDescriptionType (ICC v2): the ASCII description, empty Unicode and ScriptCode parts. */
function descTag(text: string): Buffer {
  const b = new Bytes();
  b.ascii('desc'); b.u32(0); b.u32(text.length + 1); b.ascii(`${text}\0`);
  b.u32(0); b.u32(0); // Unicode language code and count
  b.u16(0); b.push(Buffer.alloc(1)); b.push(Buffer.alloc(67)); // ScriptCode code, count, 67-byte field
  b.pad();
  return b.bytes();
}

function curveTag(): Buffer {
  const b = new Bytes();
  b.ascii('curv'); b.u32(0); b.u32(TRC_POINTS);
  for (let i = 0; i < TRC_POINTS; i++) b.u16(Math.round(srgbToLinear(i / (TRC_POINTS - 1)) * 65535));
  b.pad();
  return b.bytes();
}

/** The profile's description: the name an output intent's OutputConditionIdentifier repeats. */
export const SRGB_PROFILE_NAME = 'sRGB IEC61966-2.1';

let cached: Buffer | undefined;

/** The sRGB ICC profile bytes (built once per process). */
export function srgbIccProfile(): Buffer {
  if (cached) return cached;
  const curve = curveTag();
  const tags: Array<[string, Buffer]> = [
    ['desc', descTag(SRGB_PROFILE_NAME)],
    ['cprt', textTag('No copyright, use freely')],
    ['wtpt', xyzTag(D50)],
    ['rXYZ', xyzTag(RED)],
    ['gXYZ', xyzTag(GREEN)],
    ['bXYZ', xyzTag(BLUE)],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  // Tag data after the 128-byte header and the tag table; the three TRC entries share one curve.
  const tableSize = 4 + tags.length * 12;
  let offset = 128 + tableSize;
  const offsets = new Map<Buffer, number>();
  const data = new Bytes();
  const table = new Bytes();
  table.u32(tags.length);
  for (const [signature, tag] of tags) {
    let at = offsets.get(tag);
    if (at === undefined) {
      at = offset;
      offsets.set(tag, at);
      data.push(tag);
      offset += tag.length;
    }
    table.ascii(signature); table.u32(at); table.u32(tag.length);
  }
  const size = 128 + tableSize + data.length;
  const header = new Bytes();
  header.u32(size);
  header.u32(0); // preferred CMM
  header.u32(0x02100000); // version 2.1
  header.ascii('mntr'); header.ascii('RGB '); header.ascii('XYZ ');
  for (const v of [2026, 1, 1, 0, 0, 0]) header.u16(v); // creation date, fixed: the same bytes every time
  header.ascii('acsp');
  header.u32(0); header.u32(0); header.u32(0); header.u32(0); // platform, flags, manufacturer, model
  header.push(Buffer.alloc(8)); // attributes
  header.u32(0); // rendering intent: perceptual
  for (const v of D50) header.i32(s15(v)); // PCS illuminant
  header.u32(0); // creator
  header.push(Buffer.alloc(16 + 28)); // profile id (v4 only) and reserved
  cached = Buffer.concat([header.bytes(), table.bytes(), data.bytes()]);
  return cached;
}
