/**
 * Pack registry: which compiled Schematron packs run for a document, and their loaded SEFs.
 *
 * Packs are described by their pack.json (schematrons/README.md) and compiled by
 * `node schematrons/build.ts` into schematrons/.cache; this module only reads the cache manifest
 * and loads each SEF once. It never compiles.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { rt } from './compiled/runtime.ts';
import type { CompiledPackModule } from './compiled/run.ts';
import { CACHE_DIR, MANIFEST_PATH, issueDateMatches, withoutReplaced, type CacheManifest, type CompiledPackFile, type Syntax } from '../../../schematrons/packs.ts';

export interface SelectionContext {
  syntax: Syntax;
  customizationId: string;
  country?: string;
  /** the document's issue date as an ISO date (YYYY-MM-DD); absent when missing or unreadable (newest release) */
  issueDate?: string;
}

export interface LoadedPack extends CompiledPackFile {
  /** the parsed SEF, handed to SaxonJS as stylesheetInternal (parsed once, reused) */
  stylesheet: unknown;
  /** the SEF with only the checks the generated JavaScript leaves to saxon-js (null: use stylesheet) */
  fallbackStylesheet: unknown;
  key: string;
}

const require = createRequire(import.meta.url);

export class PackRegistry {
  readonly files: CompiledPackFile[];
  private readonly loaded = new Map<string, LoadedPack>();
  private readonly compiled = new Map<string, CompiledPackModule | null>();

  constructor(manifest: CacheManifest) {
    this.files = [...manifest.files].sort((a, b) => a.order - b.order || a.pack.localeCompare(b.pack));
  }

  static fromCache(): PackRegistry {
    if (!existsSync(MANIFEST_PATH)) {
      throw new Error(`No compiled Schematron packs (${MANIFEST_PATH} missing): run "npm run build:schematrons" first.`);
    }
    return new PackRegistry(JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as CacheManifest);
  }

  /** Every pack id@version known for a syntax. */
  available(syntax?: Syntax): CompiledPackFile[] {
    return this.files.filter((f) => !syntax || f.syntax === syntax);
  }

  /** Whether a pack (`id`, or one release `id@version`) is compiled for a syntax. */
  has(pack: string, syntax: Syntax): boolean {
    return this.files.some((f) => f.syntax === syntax && (f.pack === pack || `${f.pack}@${f.version}` === pack));
  }

  /** Packs selected by their pack.json `select` for this document (less those a selected pack replaces). */
  select(ctx: SelectionContext): CompiledPackFile[] {
    return withoutReplaced(this.files.filter((f) => {
      if (f.syntax !== ctx.syntax) return false;
      const s = f.select;
      if (!issueDateMatches(s, ctx.issueDate)) return false;
      if (s.always) return true;
      let any = false;
      if (s.customizationIdContains) {
        if (!s.customizationIdContains.some((c) => ctx.customizationId.includes(c))) return false;
        any = true;
      }
      if (s.countries) {
        if (!ctx.country || !s.countries.includes(ctx.country.toUpperCase())) return false;
        any = true;
      }
      return any;
    }));
  }

  /**
   * Packs forced by id: `id@version` names one release; a bare `id` takes the release whose issue-date
   * bounds admit `issueDate` (the newest without a readable date), as `select` would.
   */
  byIds(ids: string[], syntax: Syntax, issueDate?: string): CompiledPackFile[] {
    return this.files.filter((f) => f.syntax === syntax && (ids.includes(`${f.pack}@${f.version}`)
      || (ids.includes(f.pack) && issueDateMatches(f.select, issueDate))));
  }

  /** The loaded (parsed) SEF of a pack file: read from disk once per process. */
  load(f: CompiledPackFile): LoadedPack {
    const key = `${f.pack}@${f.version}/${f.syntax}`;
    let l = this.loaded.get(key);
    if (!l) {
      const stylesheet = JSON.parse(readFileSync(join(CACHE_DIR, f.sef), 'utf8')) as unknown;
      const fb = f.fallbackSef ? join(CACHE_DIR, f.fallbackSef) : null;
      const fallbackStylesheet = fb && existsSync(fb) ? JSON.parse(readFileSync(fb, 'utf8')) as unknown : null;
      l = { ...f, stylesheet, fallbackStylesheet, key };
      this.loaded.set(key, l);
    }
    return l;
  }

  /** The pack's generated JavaScript rules (null when the build made none): loaded once per process. */
  loadCompiled(f: CompiledPackFile): CompiledPackModule | null {
    const key = `${f.pack}@${f.version}/${f.syntax}`;
    let m = this.compiled.get(key);
    if (m === undefined) {
      const path = f.js ? join(CACHE_DIR, f.js) : null;
      m = path && existsSync(path) ? (require(path) as { build(r: typeof rt): CompiledPackModule }).build(rt) : null;
      this.compiled.set(key, m);
    }
    return m;
  }
}
