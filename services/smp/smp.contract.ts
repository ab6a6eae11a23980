/**
 * smp: this deployment's SMP (Peppol SMP 1.x read interface), publishing the companies registered
 * through it: a participant's service group, and its signed service metadata per document type.
 * Public (the network reads it), outside /v1.
 */
import { defineAction } from '../shared/contract.ts';

const SERVICE = 'smp';
const xml = { type: 'string', description: 'SMP 1.x XML (busdox namespaces)' };

export const serviceGroup = defineAction<{ participant: string }, string>(SERVICE, 'serviceGroup', {
  params: { participant: { type: 'string', min: 3, max: 200 } },
  http: {
    method: 'GET', path: '/smp/:participant', access: 'public', tag: 'SMP', responseMediaType: 'application/xml',
    summary: 'The service group of a participant registered here: `participant` is `iso6523-actorid-upis::<scheme>:<id>`, percent-encoded; one reference per document type it receives; 404 when it is not registered here',
    response: xml,
  },
});

export const serviceMetadata = defineAction<{ participant: string; document: string }, string>(SERVICE, 'serviceMetadata', {
  params: { participant: { type: 'string', min: 3, max: 200 }, document: { type: 'string', min: 3, max: 500 } },
  http: {
    method: 'GET', path: '/smp/:participant/services/:document', access: 'public', tag: 'SMP', responseMediaType: 'application/xml',
    summary: 'Signed service metadata (enveloped XMLDSig, RSA-SHA256, inclusive C14N) of a participant for one document type (`busdox-docid-qns::…`, percent-encoded): the AS4 endpoint, transport profile and access point certificate; 404 when not published',
    response: xml,
  },
});

// ---- the SML (internal: tenancy's registration jobs and migration endpoints call them) ----------

export interface SmlParticipant { peppolId: string }
/** Whether an SML is configured: without one, registrations are published by this SMP only. */
export interface SmlOutcome { sml: boolean }

export const smlRegister = defineAction<SmlParticipant, SmlOutcome>(SERVICE, 'smlRegister', {
  params: { peppolId: { type: 'string', min: 3, max: 130 } },
});
export const smlDeregister = defineAction<SmlParticipant, SmlOutcome>(SERVICE, 'smlDeregister', {
  params: { peppolId: { type: 'string', min: 3, max: 130 } },
});
export const smlPrepareMigration = defineAction<SmlParticipant, { migrationKey: string }>(SERVICE, 'smlPrepareMigration', {
  params: { peppolId: { type: 'string', min: 3, max: 130 } },
});
export const smlMigrate = defineAction<SmlParticipant & { migrationKey: string }, SmlOutcome>(SERVICE, 'smlMigrate', {
  params: { peppolId: { type: 'string', min: 3, max: 130 }, migrationKey: { type: 'string', min: 8, max: 100 } },
});
