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
