/**
 * The artefacts' retention: legal holds (an audit or a dispute keeps an organization's artefacts,
 * or one of them, past its retention) and a sweep run on demand. Actions of the documents service,
 * which owns the artefact tables: the organization manages its own holds over HTTP (platform scope,
 * like its keys and settings); operators call the internal ones, which name the organization.
 */
import { defineAction, STRICT_REMOVE, type JsonSchema } from '../shared/contract.ts';
import type { SweepReport } from '../shared/artefacts/sweep.ts';

export interface ArtefactHold {
  id: string;
  organizationId: string;
  /** The one artefact held (SHA-256); null: every artefact of the organization. */
  sha256: string | null;
  reason: string;
  createdAt: string;
  releasedAt: string | null;
}

const organizationId = { type: 'string', min: 1, max: 128, pattern: /^[A-Za-z0-9_-]+$/ } as const;
const sha256 = { type: 'string', optional: true, pattern: /^[0-9a-f]{64}$/, messages: { stringPattern: 'sha256 must be 64 lowercase hexadecimal digits (an artefact\'s SHA-256)' } } as const;
const reason = { type: 'string', min: 1, max: 500 } as const;
const holdId = { type: 'string', min: 1, max: 64 } as const;

const holdSchema: JsonSchema = {
  type: 'object', required: ['id', 'organizationId', 'sha256', 'reason', 'createdAt', 'releasedAt'],
  properties: {
    id: { type: 'string', description: 'hold_<ULID>' },
    organizationId: { type: 'string' },
    sha256: { type: ['string', 'null'], description: 'The one artefact held (its SHA-256, as in the archive manifest); null: every artefact of the organization' },
    reason: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    releasedAt: { type: ['string', 'null'], format: 'date-time', description: 'Null while the hold is active' },
  },
};
const HOLD_SUMMARY = 'the retention sweep deletes nothing a hold covers (the organization\'s artefacts, or the one named by `sha256`) until it is released, even once its retention period has ended';

/** Places a hold: the sweep deletes nothing it covers until it is released. */
export const placeArtefactHold = defineAction<{ organizationId: string; sha256?: string; reason: string }, ArtefactHold>('documents', 'placeArtefactHold', {
  params: { organizationId, sha256, reason },
});

/** Releases a hold (kept, with `releasedAt`, for the audit trail). RESOURCE_NOT_FOUND when the organization has no such hold. */
export const releaseArtefactHold = defineAction<{ organizationId: string; id: string }, ArtefactHold>('documents', 'releaseArtefactHold', {
  params: { organizationId, id: holdId },
});

/** The organization's holds, active first. */
export const listArtefactHolds = defineAction<{ organizationId: string }, { data: ArtefactHold[] }>('documents', 'listArtefactHolds', {
  params: { organizationId },
});

/** Runs the retention sweep now (the same run the schedule makes) and says what it did. */
export const sweepArtefacts = defineAction<Record<string, never>, SweepReport>('documents', 'sweepArtefacts', {
  params: {},
});

// ---------- the organization's own holds, over HTTP ----------

export const createHold = defineAction<{ sha256?: string; reason: string }, ArtefactHold>('documents', 'createHold', {
  params: { ...STRICT_REMOVE, sha256, reason },
  http: {
    method: 'POST', path: '/v1/archive/holds', access: 'platform', tag: 'Documents', status: 201, location: () => '/v1/archive/holds',
    summary: `Place a legal hold (an audit, a dispute): ${HOLD_SUMMARY}. 404 when the organization stores no artefact of that SHA-256`,
    errors: { 404: 'RESOURCE_NOT_FOUND (no artefact of that SHA-256)' },
    response: holdSchema,
  },
});

export const listHolds = defineAction<Record<string, never>, { data: ArtefactHold[] }>('documents', 'listHolds', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/archive/holds', access: 'platform', tag: 'Documents',
    summary: 'The organization\'s legal holds, active first, then released ones (kept for the audit trail), newest first; at most 1,000',
    response: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: holdSchema } } },
  },
});

export const releaseHold = defineAction<{ id: string }, ArtefactHold>('documents', 'releaseHold', {
  params: { ...STRICT_REMOVE, id: holdId },
  http: {
    method: 'POST', path: '/v1/archive/holds/:id/release', access: 'platform', tag: 'Documents',
    summary: 'Release a legal hold: the next sweeps delete what it kept once its retention has ended. Releasing a released hold changes nothing',
    errors: { 404: 'RESOURCE_NOT_FOUND (no such hold of the organization)' },
    response: holdSchema,
  },
});
