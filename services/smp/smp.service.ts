/**
 * smp: serves the SMP read interface for the companies registered through this deployment (in the
 * mode EINV_SMP_MODE names), asking tenancy which they are. Service metadata is signed per request
 * with the SMP key (services/smp/smp-keys.ts).
 */
import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { DomainError } from '../shared/errors.ts';
import { loadConfig } from '../shared/config.ts';
import { registeredParticipant } from '../tenancy/tenancy.contract.ts';
import { serviceGroup, serviceMetadata } from './smp.contract.ts';
import { smpKeys } from './smp-keys.ts';
import { RECEIVED_DOCUMENT_TYPES, serviceGroupXml, signedServiceMetadataXml } from './smp-documents.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';

const notRegistered = (what: string) => new DomainError('RESOURCE_NOT_FOUND', `${what} is not published by this SMP`);

/** `<scheme>::<value>` with the expected scheme (any case), or undefined. */
function unscheme(value: string, scheme: string): string | undefined {
  return value.toLowerCase().startsWith(`${scheme}::`) ? value.slice(scheme.length + 2) : undefined;
}

async function published(ctx: Context<{ participant: string }>): Promise<string> {
  const id = unscheme(ctx.params.participant, PARTICIPANT_SCHEME);
  if (!id) throw notRegistered(`Participant ${ctx.params.participant}`);
  const company = await call(ctx, registeredParticipant, { peppolId: id, livemode: loadConfig().smp.mode === 'live' });
  if (!company?.peppolId) throw notRegistered(`Participant ${ctx.params.participant}`);
  return company.peppolId;
}

function asXml(ctx: Context): void {
  (ctx.meta as { $responseType?: string }).$responseType = 'application/xml; charset=utf-8';
}

const SmpService: ServiceSchema = {
  name: 'smp',

  started() {
    const keys = smpKeys();
    if (keys.generated) this.logger.warn('smp: no EINV_SMP_KEY_FILE / EINV_SMP_CERTIFICATE_FILE: signing with a self-signed development certificate made at start');
  },

  actions: {
    serviceGroup: implement(serviceGroup, async (ctx) => {
      const participantId = await published(ctx);
      asXml(ctx);
      return serviceGroupXml(`${loadConfig().publicUrl}/smp`, participantId);
    }),

    serviceMetadata: implement(serviceMetadata, async (ctx) => {
      const participantId = await published(ctx);
      const documentTypeId = unscheme(ctx.params.document, DOCUMENT_SCHEME);
      if (!documentTypeId || !RECEIVED_DOCUMENT_TYPES.includes(documentTypeId)) throw notRegistered(`Document type ${ctx.params.document}`);
      asXml(ctx);
      const publicUrl = loadConfig().publicUrl;
      return signedServiceMetadataXml(participantId, documentTypeId, {
        address: `${publicUrl}/connectors/peppol-as4/as4`,
        serviceDescription: 'Open e-invoicing exchange API access point',
        technicalContactUrl: `${publicUrl}/docs`,
      }, smpKeys());
    }),
  },
};

export default SmpService;
