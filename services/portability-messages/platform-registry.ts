/**
 * The registry of French approved platforms: a snapshot shipped with the product
 * (platforms.snapshot.json) or the operator's own (EINV_PORTABILITY_PLATFORMS_FILE, same shape),
 * read once per process and checked when read. It answers the platform list and says where a
 * portability message goes (`registry:<name>`).
 *
 * Nothing here is invented: a platform without a published address has none (a message to it is
 * `no_recipient` unless the caller gives `to`), and a matricule is kept only with its confidence.
 */
import { readFileSync } from 'node:fs';
import { PLATFORM_STATUSES, MATRICULE_CONFIDENCES, type PlatformStatus, type PlatformView } from './portability-messages.contract.ts';

export interface RegistryPlatform extends Omit<PlatformView, 'matricule' | 'matriculeConfidence'> {
  matricule: string | null;
  matriculeConfidence: (typeof MATRICULE_CONFIDENCES)[number] | null;
}

export interface PlatformRegistry {
  source: string;
  snapshotDate: string;
  platforms: RegistryPlatform[];
}

const SHIPPED = new URL('./platforms.snapshot.json', import.meta.url);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fail(where: string, message: string): never {
  throw new Error(`platform registry ${where}: ${message}`);
}

/** Reads and checks a snapshot: a wrong file stops the service at start, never a request. */
export function readRegistry(file: string | URL): PlatformRegistry {
  const where = String(file);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { source?: unknown; snapshotDate?: unknown; platforms?: unknown };
  if (typeof raw.source !== 'string' || !raw.source) fail(where, '`source` must say where the list comes from');
  if (typeof raw.snapshotDate !== 'string' || !DATE.test(raw.snapshotDate)) fail(where, '`snapshotDate` must be a YYYY-MM-DD date');
  if (!Array.isArray(raw.platforms)) fail(where, '`platforms` must be an array');
  const optionalEmail = (v: unknown, field: string, name: string): string | null => {
    if (v === null || v === undefined || v === '') return null;
    if (typeof v !== 'string' || !EMAIL.test(v)) fail(where, `${name}: ${field} is not an e-mail address`);
    return v;
  };
  const platforms = raw.platforms.map((p: Record<string, unknown>, i: number): RegistryPlatform => {
    const name = typeof p.name === 'string' && p.name.trim() ? p.name.trim() : fail(where, `platform #${i + 1} has no name`);
    if (!(PLATFORM_STATUSES as readonly unknown[]).includes(p.status)) fail(where, `${name}: status must be one of ${PLATFORM_STATUSES.join(', ')}`);
    const matricule = p.matricule === undefined || p.matricule === null ? null : String(p.matricule);
    if (matricule !== null && !/^\d{4}$/.test(matricule)) fail(where, `${name}: a matricule is four digits`);
    const confidence = (p.matriculeConfidence ?? null) as RegistryPlatform['matriculeConfidence'];
    // A matricule without the way it is known would read as certain: refuse it.
    if (matricule !== null && !(MATRICULE_CONFIDENCES as readonly unknown[]).includes(confidence)) fail(where, `${name}: a matricule needs its matriculeConfidence (${MATRICULE_CONFIDENCES.join(', ')})`);
    if (typeof p.registeredOn === 'string' && !DATE.test(p.registeredOn)) fail(where, `${name}: registeredOn must be a YYYY-MM-DD date`);
    return {
      name, website: typeof p.website === 'string' ? p.website : null, status: p.status as PlatformStatus,
      email: optionalEmail(p.email, 'email', name), portabilityEmail: optionalEmail(p.portabilityEmail, 'portabilityEmail', name), contactEmail: optionalEmail(p.contactEmail, 'contactEmail', name),
      registeredOn: typeof p.registeredOn === 'string' ? p.registeredOn : null, matricule, matriculeConfidence: matricule === null ? null : confidence,
    };
  });
  return { source: raw.source, snapshotDate: raw.snapshotDate, platforms };
}

export function loadRegistry(operatorFile: string | undefined): PlatformRegistry {
  return readRegistry(operatorFile ?? SHIPPED);
}

/** Case, accents and punctuation do not tell two names apart. */
export function normaliseName(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The platforms matching `q` (name, any e-mail, website) and `status`, in snapshot order. */
export function searchRegistry(registry: PlatformRegistry, q: string | undefined, status: PlatformStatus | undefined): RegistryPlatform[] {
  const needle = q?.trim().toLowerCase();
  const normalised = q ? normaliseName(q) : '';
  return registry.platforms.filter((p) => (!status || p.status === status) && (!needle
    || (normalised && normaliseName(p.name).includes(normalised))
    || [p.website, p.email, p.portabilityEmail, p.contactEmail].some((v) => v?.toLowerCase().includes(needle))));
}

/** A platform named by the caller: its matricule (an id of four digits), or its name. */
export function findPlatform(registry: PlatformRegistry, id: string | null | undefined, name: string | null | undefined): RegistryPlatform | undefined {
  if (id) {
    const byMatricule = registry.platforms.find((p) => p.matricule !== null && p.matricule === id.trim());
    if (byMatricule) return byMatricule;
  }
  for (const candidate of [name, id]) {
    if (!candidate) continue;
    const wanted = normaliseName(candidate);
    const found = wanted && registry.platforms.find((p) => normaliseName(p.name) === wanted);
    if (found) return found;
  }
  return undefined;
}

/** Where a platform takes portability messages: its portability address, else its contact address, else its general one. */
export const portabilityAddressOf = (p: RegistryPlatform): string | null => p.portabilityEmail ?? p.contactEmail ?? p.email;

/** The list as a reader sees it: matricules only for a signed-in reader, and only where known. */
export function platformView(p: RegistryPlatform, signedIn: boolean): PlatformView {
  const { matricule, matriculeConfidence, ...rest } = p;
  return signedIn && matricule !== null && matriculeConfidence !== null ? { ...rest, matricule, matriculeConfidence } : rest;
}
