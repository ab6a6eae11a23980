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
import { serviceGroup, serviceMetadata, smlDeregister, smlMigrate, smlPrepareMigration, smlRegister } from './smp.contract.ts';
import { SmlClient, SmlError } from './sml-client.ts';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { smpKeys } from './smp-keys.ts';
import { receivedDocumentTypes, SPID_DOCUMENT_TYPES, serviceGroupXml, signedServiceMetadataXml } from './smp-documents.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';

const notRegistered = (what: string) => new DomainError('RESOURCE_NOT_FOUND', `${what} is not published by this SMP`);

/** `<scheme>::<value>` with the expected scheme (any case), or undefined. */
function unscheme(value: string, scheme: string): string | undefined {
  return value.toLowerCase().startsWith(`${scheme}::`) ? value.slice(scheme.length + 2) : undefined;
}

/** The participant as published: our own SPID (MLS for this access point), or a company registered here. */
async function published(ctx: Context<{ participant: string }>): Promise<{ participantId: string; spid: boolean }> {
  const id = unscheme(ctx.params.participant, PARTICIPANT_SCHEME);
  if (!id) throw notRegistered(`Participant ${ctx.params.participant}`);
  const spid = smpKeys().spid;
  if (spid && id.toLowerCase() === spid) return { participantId: spid, spid: true };
  const company = await call(ctx, registeredParticipant, { peppolId: id, livemode: loadConfig().smp.mode === 'live' });
  if (!company?.peppolId) throw notRegistered(`Participant ${ctx.params.participant}`);
  return { participantId: company.peppolId, spid: false };
}

function asXml(ctx: Context): void {
  (ctx.meta as { $responseType?: string }).$responseType = 'application/xml; charset=utf-8';
}

type SmpThis = { sml: SmlClient | undefined };

/** An SML answer as an API error: the caller's mistake, not found, or the SML's own trouble. */
function smlFailure(err: unknown): never {
  if (!(err instanceof SmlError)) throw err;
  if (err.transient) throw new DomainError('UPSTREAM_UNAVAILABLE', `The SML could not answer: ${err.message}`, { retryAfter: 60 });
  if (err.kind === 'BadRequest') throw new DomainError('INVALID_REQUEST', `The SML refused the request: ${err.message}`);
  if (err.kind === 'NotFound') throw new DomainError('RESOURCE_NOT_FOUND', `The SML does not know this participant: ${err.message}`);
  throw new DomainError('UPSTREAM_ERROR', `The SML refused this SMP: ${err.message}`);
}

function smlOf(self: SmpThis): SmlClient {
  if (!self.sml) throw new DomainError('UPSTREAM_UNAVAILABLE', 'This deployment registers with no SML (EINV_SML_URL is not set), so participants cannot migrate through it', { retryAfter: 3600 });
  return self.sml;
}

const SmpService: ServiceSchema = {
  name: 'smp',

  created() {
    const sml = loadConfig().smp.sml;
    const keys = smpKeys();
    // The SML knows this SMP by its Peppol certificate: the one that signs the metadata.
    (this as unknown as SmpThis).sml = sml ? new SmlClient({
      url: sml.url, smpId: sml.smpId, timeoutMs: sml.timeoutMs, certificatePem: keys.certificatePem, keyPem: keys.privateKeyPem,
      ...(sml.caFile ? { caPem: readFileSync(sml.caFile, 'utf8') } : {}),
    }) : undefined;
  },
  async stopped() {
    await (this as unknown as SmpThis).sml?.close();
  },

  started() {
    const keys = smpKeys();
    if (keys.generated) this.logger.warn('smp: no EINV_SMP_KEY_FILE / EINV_SMP_CERTIFICATE_FILE: signing with a self-signed development certificate made at start');
  },

  actions: {
    serviceGroup: implement(serviceGroup, async (ctx) => {
      const { participantId, spid } = await published(ctx);
      asXml(ctx);
      return serviceGroupXml(`${loadConfig().publicUrl}/smp`, participantId, spid ? SPID_DOCUMENT_TYPES : receivedDocumentTypes(participantId));
    }),

    serviceMetadata: implement(serviceMetadata, async (ctx) => {
      const { participantId, spid } = await published(ctx);
      const documentTypeId = unscheme(ctx.params.document, DOCUMENT_SCHEME);
      if (!documentTypeId || !(spid ? SPID_DOCUMENT_TYPES : receivedDocumentTypes(participantId)).includes(documentTypeId)) throw notRegistered(`Document type ${ctx.params.document}`);
      asXml(ctx);
      const publicUrl = loadConfig().publicUrl;
      return signedServiceMetadataXml(participantId, documentTypeId, {
        address: `${publicUrl}/connectors/peppol-as4/as4`,
        serviceDescription: 'Open e-invoicing exchange API access point',
        technicalContactUrl: `${publicUrl}/docs`,
      }, smpKeys());
    }),

    smlRegister: implement(smlRegister, async function (this: SmpThis, ctx) {
      if (!this.sml) return { sml: false };
      await this.sml.createParticipant(ctx.params.peppolId).catch(smlFailure);
      return { sml: true };
    }),
    smlDeregister: implement(smlDeregister, async function (this: SmpThis, ctx) {
      if (!this.sml) return { sml: false };
      try {
        await this.sml.deleteParticipant(ctx.params.peppolId);
      } catch (err) {
        // already gone from the SML: what deregistration wants
        if (!(err instanceof SmlError && err.kind === 'NotFound')) smlFailure(err);
      }
      return { sml: true };
    }),
    smlPrepareMigration: implement(smlPrepareMigration, async function (this: SmpThis, ctx) {
      // 24 characters the receiving provider types in: letters and digits of 144 random bits
      const migrationKey = randomBytes(18).toString('base64').replace(/\+/g, 'A').replace(/\//g, 'b');
      await smlOf(this).prepareToMigrate(ctx.params.peppolId, migrationKey).catch(smlFailure);
      return { migrationKey };
    }),
    smlMigrate: implement(smlMigrate, async function (this: SmpThis, ctx) {
      await smlOf(this).migrate(ctx.params.peppolId, ctx.params.migrationKey).catch(smlFailure);
      return { sml: true };
    }),
  },
};

export default SmpService;
