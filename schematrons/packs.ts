/**
 * Pack discovery shared by the build script and the validation engine's registry.
 *
 * A pack lives in `schematrons/<pack>/<version>/` with a `pack.json` manifest (see README.md) and
 * one `.sch` file per syntax. The build compiles each `.sch` into `schematrons/.cache/` and writes
 * `schematrons/.cache/manifest.json`, which the engine reads at start-up.
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SCHEMATRONS_DIR = dirname(fileURLToPath(import.meta.url));
export const CACHE_DIR = join(SCHEMATRONS_DIR, '.cache');
export const MANIFEST_PATH = join(CACHE_DIR, 'manifest.json');

/**
 * `xml`: a document outside the invoice syntaxes (Peppol Reporting TSR/EUSR), run only through its own
 * entry point. `cdar`: a French lifecycle message (CDAR D22B), selected by `validate()` like an invoice.
 */
export type Syntax = 'ubl' | 'cii' | 'xml' | 'cdar';

/** When a pack runs. All given conditions must hold; `always: true` runs it for every document of its syntax. */
export interface PackSelector {
  always?: boolean;
  /** runs when the document's CustomizationID / guideline id contains one of these strings */
  customizationIdContains?: string[];
  /** runs when the destination country (ISO 3166-1 alpha-2) is one of these */
  countries?: string[];
  /**
   * Issue-date bounds (ISO dates, YYYY-MM-DD) for the releases of one pack: the pack applies to documents
   * issued on or after `issuedFrom` and before `issuedBefore` (UBL cbc:IssueDate, CII
   * ram:IssueDateTime/udt:DateTimeString format 102). A document without a readable issue date gets
   * the newest release: the one without `issuedBefore`. A restriction, never a reason to run on its own.
   */
  issuedFrom?: string;
  issuedBefore?: string;
  /**
   * Pack ids this pack takes the place of: when it is selected, they do not run, whether their own
   * `select` or a destination network (`networkPacks`) would add them. Peppol BIS Self-Billing replaces
   * Peppol BIS Billing, as the official rule set composes the self-billing rules instead of, not beside,
   * the Billing rules. Forcing packs by id (`packs`) is never overridden.
   */
  replaces?: string[];
}

/** `files` without the packs that a selected pack replaces (`select.replaces`). */
export function withoutReplaced<T extends { pack: string; select: PackSelector }>(files: T[]): T[] {
  const replaced = new Set(files.flatMap((f) => f.select.replaces ?? []));
  return replaced.size === 0 ? files : files.filter((f) => !replaced.has(f.pack));
}

/** Whether a pack's issue-date bounds admit a document issued on `issueDate` (ISO date; undefined: unreadable). */
export function issueDateMatches(s: PackSelector, issueDate: string | undefined): boolean {
  if (!s.issuedFrom && !s.issuedBefore) return true;
  if (!issueDate) return !s.issuedBefore;
  return (!s.issuedFrom || issueDate >= s.issuedFrom) && (!s.issuedBefore || issueDate < s.issuedBefore);
}

export interface PackManifest {
  /** pack id, same as its folder name, e.g. "en16931" */
  id: string;
  /** version, same as its folder name, e.g. "1.3.16" */
  version: string;
  title: string;
  /** one Schematron file per syntax, path relative to the version folder */
  files: Partial<Record<Syntax, string>>;
  select: PackSelector;
  /** order in which packs run and findings are listed (lower first); default 100 */
  order?: number;
}

export interface PackSource extends PackManifest {
  dir: string;
}

/** Every `schematrons/<pack>/<version>/pack.json`. */
export function discoverPacks(root = SCHEMATRONS_DIR): PackSource[] {
  const packs: PackSource[] = [];
  for (const p of readdirSync(root).sort()) {
    const pdir = join(root, p);
    if (p.startsWith('.') || !statSync(pdir).isDirectory()) continue;
    for (const v of readdirSync(pdir).sort()) {
      const vdir = join(pdir, v);
      const mf = join(vdir, 'pack.json');
      if (!statSync(vdir).isDirectory() || !existsSync(mf)) continue;
      const m = JSON.parse(readFileSync(mf, 'utf8')) as PackManifest;
      if (m.id !== p || m.version !== v) {
        throw new Error(`${mf}: id/version (${m.id}/${m.version}) must match the folder ${p}/${v}`);
      }
      for (const [syntax, file] of Object.entries(m.files)) {
        if (syntax !== 'ubl' && syntax !== 'cii' && syntax !== 'xml' && syntax !== 'cdar') throw new Error(`${mf}: unknown syntax ${syntax}`);
        if (!existsSync(join(vdir, file))) throw new Error(`${mf}: missing ${file}`);
      }
      packs.push({ ...m, dir: vdir });
    }
  }
  return packs;
}

/** One compiled pack file, as listed in the cache manifest. */
export interface CompiledPackFile {
  pack: string;
  version: string;
  syntax: Syntax;
  title: string;
  select: PackSelector;
  order: number;
  /** SEF path relative to CACHE_DIR */
  sef: string;
  /** content hash of the source (+ compiler version) */
  hash: string;
  ruleIds: string[];
  checks: number;
  /** generated JavaScript rule module path relative to CACHE_DIR (absent: saxon-js only) */
  js?: string;
  /** SEF of the same pack with only the checks left to saxon-js (relative to CACHE_DIR) */
  fallbackSef?: string;
  /** checks compiled to JavaScript / left to saxon-js */
  compiledChecks?: number;
  fallbackChecks?: number;
}

export interface CacheManifest {
  compilerVersion: string;
  files: CompiledPackFile[];
}
