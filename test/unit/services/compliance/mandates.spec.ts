/**
 * The mandate map (services/compliance/mandates.json) against the compliance reference it is
 * compiled from: every country of §D (its three tables) is in the file and nothing else, and each
 * one's models agree with the reference's class and model, its formats are the ones the reference
 * names, and its phase dates are the reference's dates (both ways for full and month dates).
 */
import { readReference } from '../../../support/reference.ts';
import { mandateFile, mandateFileProblems, type Mandate, type MandatePhase } from '../../../../services/compliance/mandates.ts';

interface ReferenceRow { row: number; country: string; model: string; platform: string; format: string; dates: string; class: string; all: string }

const clean = (cell: string) => cell.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();

/** The rows of the §D tables (D.1 Europe, D.2 Middle East, D.3 Asia and Pacific), by column name. */
function sectionDRows(markdown: string): ReferenceRow[] {
  const start = markdown.indexOf('\n## D.');
  const end = markdown.indexOf('\n### D.4', start);
  if (start < 0 || end < 0) throw new Error('compliance.md: section D (## D. … ### D.4) not found');
  const rows: ReferenceRow[] = [];
  let header: string[] | null = null;
  for (const line of markdown.slice(start, end).split('\n')) {
    if (!line.startsWith('|')) { header = null; continue; }
    const cells = line.split('|').slice(1, -1).map(clean);
    if (cells[0] === '#') { header = cells; continue; }
    if (!header || !/^\d+$/.test(cells[0]!)) continue;
    expect(cells).toHaveLength(header.length);
    const col = (test: RegExp) => {
      const i = header!.findIndex((h) => test.test(h));
      if (i < 0) throw new Error(`compliance.md §D: no column ${test} in ${header!.join(' | ')}`);
      return cells[i]!;
    };
    rows.push({
      row: Number(cells[0]), country: col(/^Country$/), model: col(/^Model/), platform: col(/^Platform/), format: col(/Format$/i),
      dates: col(/Dates/i), class: col(/^Class$/), all: cells.join(' | '),
    });
  }
  return rows;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A phase date as the reference writes it: `1 Sep 2026`, `Aug 2026`, `2028`. */
function referenceStyle(date: string): string {
  const [y, m, d] = date.split('-');
  if (!m) return y!;
  return d ? `${Number(d)} ${MONTHS[Number(m) - 1]} ${y}` : `${MONTHS[Number(m) - 1]} ${y}`;
}

/** The reference's short names for a few countries. */
const SHORT_NAMES: Record<string, string> = { UAE: 'United Arab Emirates' };

const reference = sectionDRows(readReference('compliance.md'));
const file = mandateFile();
const byName = new Map(file.countries.map((m) => [m.name, m]));
const entryOf = (r: ReferenceRow): Mandate | undefined => byName.get(SHORT_NAMES[r.country] ?? r.country);

describe('the mandate map against compliance.md §D', () => {
  it('reads the three §D tables: 48 numbered rows', () => {
    expect(reference.map((r) => r.row)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
  });

  it('is a well-formed, versioned data file', () => {
    expect(mandateFileProblems(file)).toEqual([]);
    expect(file.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(file.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('has every country of §D, and no other', () => {
    expect(reference.filter((r) => !entryOf(r)).map((r) => r.country)).toEqual([]);
    expect(file.countries).toHaveLength(reference.length);
    expect(new Set(reference.map((r) => entryOf(r)!.country)).size).toBe(reference.length);
  });

  it.each(reference.map((r) => [r.country, r] as const))('%s: models agree with the reference class and model', (_name, r) => {
    const m = entryOf(r)!;
    const has = (...models: string[]) => models.some((x) => m.models.includes(x as Mandate['models'][number]));
    // Class C: a national clearance or reporting adapter; P: Peppol-based (or any channel); P+R: Peppol plus a reporting leg.
    if (/^C\b/.test(r.class) || /\+ C\b/.test(r.class)) expect({ country: m.country, clearanceOrReporting: has('clearance', 'reporting') }).toEqual({ country: m.country, clearanceOrReporting: true });
    if (/^P\+R$/.test(r.class)) expect({ country: m.country, peppol: has('peppol'), reporting: has('reporting') }).toEqual({ country: m.country, peppol: true, reporting: true });
    if (/^P\b/.test(r.class) || /\+P\b/.test(r.class) || /\+ P\b/.test(r.class)) expect({ country: m.country, peppolOrPostAudit: has('peppol', 'post-audit') }).toEqual({ country: m.country, peppolOrPostAudit: true });
    if (/CTC-clr|\bclearance\b/.test(r.model)) expect({ country: m.country, clearance: has('clearance') }).toEqual({ country: m.country, clearance: true });
    if (/\bRTR\b/.test(r.model)) expect({ country: m.country, reporting: has('reporting') }).toEqual({ country: m.country, reporting: true });
    if (m.models.includes('none')) expect(m.models).toEqual(['none']);
  });

  it.each(reference.map((r) => [r.country, r] as const))('%s: formats are the ones the reference names', (_name, r) => {
    const m = entryOf(r)!;
    if (r.format !== '⚠') expect(m.formats.length).toBeGreaterThan(0);
    expect(m.formats.map((f) => f.name).filter((name) => !r.format.includes(name))).toEqual([]);
    expect(m.platforms.map((p) => p.name).filter((name) => !r.all.includes(name))).toEqual([]);
  });

  it.each(reference.map((r) => [r.country, r] as const))('%s: phase dates are the reference dates, both ways', (_name, r) => {
    const m = entryOf(r)!;
    expect(m.phases.length).toBeGreaterThan(0);
    const dated = m.phases.filter((p): p is MandatePhase & { date: string } => p.date !== null);
    // Every date of ours is written in the reference's date cell …
    expect(dated.map((p) => referenceStyle(p.date)).filter((d) => !r.dates.includes(d))).toEqual([]);
    // … and every day or month the cell gives is one of ours (a phase, or named in its text).
    const ours = [...dated.map((p) => referenceStyle(p.date)), ...m.phases.map((p) => p.appliesTo), ...(m.notes ?? [])].join(' ; ');
    // (a day is a number not following a word: "Phase 1 Dec 2021" is December 2021)
    const theirs = [...r.dates.matchAll(new RegExp(`\\b((?<![A-Za-z] )\\d{1,2} )?(${MONTHS.join('|')}) \\d{4}\\b`, 'g'))].map((x) => x[0]);
    expect(theirs.filter((d) => !ours.includes(d))).toEqual([]);
    // A cell that gives no date at all is an undated or voluntary mandate here.
    if (!/\d{4}/.test(r.dates)) expect(dated).toEqual([]);
  });
});
