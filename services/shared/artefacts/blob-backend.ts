/**
 * Where an artefact's bytes are written: a backend knows bytes by (namespace, hash) and nothing of
 * retention or of who refers to them (services/shared/artefacts/artefacts.ts keeps that).
 */
import type { ArtefactLocation, ArtefactNamespace } from './artefact-store.ts';

export interface BlobBackend {
  readonly location: ArtefactLocation;
  /** Writes the bytes unless the key holds them already: never an overwrite. */
  write(ns: ArtefactNamespace, sha256: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes, or null when the key holds none. */
  read(ns: ArtefactNamespace, sha256: string): Promise<Buffer | null>;
  remove(ns: ArtefactNamespace, sha256: string): Promise<void>;
}
