/**
 * The artefacts' retention, for operators: legal holds (an audit or a dispute keeps an
 * organization's artefacts, or one of them, past its retention) and a sweep run on demand. Internal
 * actions of the documents service, which owns the artefact tables; no public route yet (a hold is
 * an operator's decision, not an API client's).
 */
import { defineAction } from '../shared/contract.ts';
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

/** Places a hold: the sweep deletes nothing it covers until it is released. */
export const placeArtefactHold = defineAction<{ organizationId: string; sha256?: string; reason: string }, ArtefactHold>('documents', 'placeArtefactHold', {
  params: { organizationId, sha256: { type: 'string', optional: true, pattern: /^[0-9a-f]{64}$/ }, reason: { type: 'string', min: 1, max: 500 } },
});

/** Releases a hold (kept, with `releasedAt`, for the audit trail). RESOURCE_NOT_FOUND when the organization has no such hold. */
export const releaseArtefactHold = defineAction<{ organizationId: string; id: string }, ArtefactHold>('documents', 'releaseArtefactHold', {
  params: { organizationId, id: { type: 'string', min: 1, max: 64 } },
});

/** The organization's holds, active first. */
export const listArtefactHolds = defineAction<{ organizationId: string }, { data: ArtefactHold[] }>('documents', 'listArtefactHolds', {
  params: { organizationId },
});

/** Runs the retention sweep now (the same run the schedule makes) and says what it did. */
export const sweepArtefacts = defineAction<Record<string, never>, SweepReport>('documents', 'sweepArtefacts', {
  params: {},
});
