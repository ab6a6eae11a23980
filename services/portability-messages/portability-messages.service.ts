/**
 * portability-messages: builds each change-of-platform message (mappings/portability), records it
 * in `portability_messages` before anything leaves, hands it to the mail service outside any
 * transaction, records the outcome and emits `portability.message.recorded` for the portability
 * service's evidence chain. Also answers the registry of approved platforms, the Peppol access
 * point of a participant, and company suggestions.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type RequestMeta } from '../shared/auth.ts';
import { DomainError, rethrowAsDomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { annuaire } from '../portability/portability.contract.ts';
import { routes as mailRoutes, send as sendMail, type SendMailResult } from '../mail/mail.contract.ts';
import { PORTABILITY_CSV_COLUMNS, buildPortabilityCsv, buildSubject, checkRequestRef, parseCsvRow, parseSubject, statusCodeOf, type PortabilityCsv, type PortabilityCsvFields } from '../../mappings/portability/index.ts';
import { PortabilityMessage } from './portability-message.entity.ts';
import { findPlatform, loadRegistry, platformView, portabilityAddressOf, searchRegistry, type PlatformRegistry } from './platform-registry.ts';
import { counterpartRole, csvFilename, csvSha256, messageBody } from './message-text.ts';
import { resolveAccessPoint } from './access-point.ts';
import { suggestCompanies } from './company-suggestions.ts';
import * as contract from './portability-messages.contract.ts';

type MessagesThis = Service & { registry: PlatformRegistry };

/** The annuaire of the SIREN as the portability service reads it now, or null when it cannot be asked. */
const ANNUAIRE_TIMEOUT_MS = 5_000;

function view(m: PortabilityMessage): contract.PortabilityMessageView {
  return {
    id: m.id, subject: m.subject, messageType: m.messageType, statusCode: m.statusCode as contract.PortabilityMessageView['statusCode'], state: m.state,
    requestRef: m.requestRef, taxpayerSiren: m.taxpayerSiren, directionRole: m.directionRole ?? null, filename: m.filename,
    csvHeader: m.csvHeader, csvRow: m.csvRow, csvSha256: m.csvSha256, to: m.recipient ?? null, recipientSource: m.recipientSource,
    dispatched: m.dispatched, reason: m.reason, smtpMessageId: m.smtpMessageId ?? null, transport: m.transport ?? null, createdAt: m.createdAt.toISOString(),
  };
}

function proof(m: PortabilityMessage): contract.PortabilityMessageProof {
  // In the columns' order (jsonb keeps its own).
  const csvFields = Object.fromEntries(PORTABILITY_CSV_COLUMNS.map((c) => [c, m.csvFields[c] ?? ''])) as PortabilityCsvFields;
  return { ...view(m), csvFields, reasonCode: m.reasonCode ?? null, reasonText: m.reasonText ?? null, recipientResolution: m.recipientResolution, annuaire: m.annuaire ?? null };
}

/** Mapping errors (MappingError) as the API's 400s. */
function mapped<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    return rethrowAsDomainError(err);
  }
}

function resolveRecipient(registry: PlatformRegistry, p: contract.CreateMessageParams): { to: string | null; source: string; resolution: contract.RecipientResolution } {
  const role = counterpartRole(p.directionRole, p.messageType);
  const counterpart = { role, id: (role === 'LOSING_PA' ? p.losingPaId : p.gainingPaId) ?? null, name: (role === 'LOSING_PA' ? p.losingPaName : p.gainingPaName) ?? null };
  const registryRef = { source: registry.source, snapshotDate: registry.snapshotDate };
  const platform = findPlatform(registry, counterpart.id, counterpart.name);
  const address = platform ? portabilityAddressOf(platform) : null;
  const platformFacts = platform && address ? { name: platform.name, matricule: platform.matricule, email: address } : null;
  if (p.to) return { to: p.to, source: 'explicit', resolution: { source: 'explicit', counterpart, platform: platformFacts, registry: registryRef } };
  if (platform && address) return { to: address, source: `registry:${platform.name}`, resolution: { source: 'registry', counterpart, platform: platformFacts, registry: registryRef } };
  return { to: null, source: 'unresolved', resolution: { source: 'unresolved', counterpart, platform: null, registry: registryRef } };
}

async function annuaireSnapshot(ctx: Context, siren: string): Promise<Record<string, unknown> | null> {
  try {
    const answer = await call(ctx, annuaire, { siren }, { timeout: ANNUAIRE_TIMEOUT_MS, retries: 0 });
    return answer && typeof answer === 'object' ? { ...answer } : null;
  } catch {
    return null;
  }
}

/** Which route mails it (the direct relay first), or null when this deployment has neither. */
async function mailRoute(ctx: Context): Promise<'relay' | 'smtp' | null> {
  try {
    const configured = await call(ctx, mailRoutes, {}, { timeout: ANNUAIRE_TIMEOUT_MS, retries: 0 });
    return configured['portability-relay'] ? 'relay' : configured.default ? 'smtp' : null;
  } catch {
    // No mail service in reach is a deployment without mail.
    return null;
  }
}

async function deliver(ctx: Context, m: PortabilityMessage, csv: PortabilityCsv, transport: 'relay' | 'smtp'): Promise<SendMailResult> {
  const attached = transport === 'relay';
  const text = messageBody({
    subject: m.subject, requestRef: m.requestRef, siren: m.taxpayerSiren, messageType: m.messageType, statusCode: m.statusCode as never, state: m.state,
    reasonCode: m.reasonCode ?? null, reasonText: m.reasonText ?? null, filename: m.filename, sha256: m.csvSha256,
  }, csv, attached);
  try {
    return await call(ctx, sendMail, {
      to: [m.recipient!], subject: m.subject, text, route: attached ? 'portability-relay' : 'default',
      ...(attached ? { attachments: [{ filename: m.filename, content: csv.text, contentType: 'text/csv; charset=utf-8' }] } : {}),
    }, { retries: 0 });
  } catch (err) {
    return { sent: false, reason: 'error', transport: attached ? 'portability-relay' : 'default', error: (err as Error).message };
  }
}

async function createMessage(this: MessagesThis, ctx: Context<contract.CreateMessageParams>): Promise<contract.PortabilityMessageView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  const now = systemClock.now();
  mapped(() => checkRequestRef(p.requestRef));
  if (p.state === 'rejected' && !p.reasonCode) {
    throw new DomainError('MISSING_FIELD', 'A rejection carries its reasonCode (and reasonText)', { details: [{ field: 'reasonCode', rule: 'required', message: 'reasonCode is required when state is rejected' }] });
  }
  const statusCode = mapped(() => statusCodeOf(p.state));
  const subject = mapped(() => buildSubject({ messageType: p.messageType, statusCode, siren: p.taxpayerSiren, requestRef: p.requestRef }));
  const csv = mapped(() => buildPortabilityCsv({ ...p, statusCode }, now));
  const recipient = resolveRecipient(this.registry, p);
  // Remote reads before anything is written; no transaction is open across them or the send.
  const annuaire = await annuaireSnapshot(ctx, p.taxpayerSiren);
  const transport = auth.livemode && recipient.to && loadConfig().mail.portabilityDispatch ? await mailRoute(ctx) : null;
  const reason = !auth.livemode ? 'sandbox' : !recipient.to ? 'no_recipient' : !loadConfig().mail.portabilityDispatch ? 'dispatch_disabled' : !transport ? 'not_configured' : 'sending';

  const em = emOf(ctx);
  const m = em.create(PortabilityMessage, {
    id: newId('portabilityMessage'), organizationId: auth.organizationId, livemode: auth.livemode, requestRef: p.requestRef, messageType: p.messageType,
    state: p.state, statusCode, directionRole: p.directionRole ?? null, taxpayerSiren: p.taxpayerSiren, subject,
    filename: csvFilename({ messageType: p.messageType, statusCode, siren: p.taxpayerSiren, requestRef: p.requestRef }, now),
    csvHeader: csv.header, csvRow: csv.row, csvFields: csv.fields, csvSha256: csvSha256(csv), reasonCode: p.reasonCode ?? null, reasonText: p.reasonText ?? null,
    recipient: recipient.to, recipientSource: recipient.source, recipientResolution: recipient.resolution,
    dispatched: false, reason, smtpMessageId: null, transport: null, annuaire, createdAt: now,
  });
  // On record before the mail leaves: a message is in the log whether or not it is mailed.
  await em.flush();
  if (reason === 'sending' && transport) {
    const result = await deliver(ctx, m, csv, transport);
    m.transport = transport;
    m.dispatched = result.sent;
    m.reason = result.sent ? 'sent' : result.reason === 'not_configured' ? 'not_configured' : `mail error: ${result.error ?? 'unknown'}`.slice(0, 1000);
    m.smtpMessageId = result.sent ? result.messageId : null;
    await em.flush();
  }
  const recorded: contract.PortabilityMessageRecorded = {
    organizationId: m.organizationId, messageId: m.id, requestRef: m.requestRef, messageType: m.messageType, state: m.state, statusCode,
    directionRole: m.directionRole ?? null, taxpayerSiren: m.taxpayerSiren, reasonCode: m.reasonCode ?? null, reasonText: m.reasonText ?? null,
    createdAt: m.createdAt.toISOString(), csvSha256: m.csvSha256,
  };
  void ctx.broker.emit(contract.PORTABILITY_MESSAGE_RECORDED_EVENT, recorded, { meta: { requestId: (ctx.meta as RequestMeta).requestId } });
  return view(m);
}

const scopeOf = (ctx: Context) => {
  const auth = principalOf(ctx);
  return { organizationId: auth.organizationId, livemode: auth.livemode };
};

const PortabilityMessagesService: ServiceSchema = {
  name: 'portability-messages',
  mixins: [OrmMixin],

  created() {
    (this as unknown as MessagesThis).registry = loadRegistry(loadConfig().mail.portabilityPlatformsFile);
  },

  actions: {
    createMessage: implement(contract.createMessage, async function (this: MessagesThis, ctx) { return createMessage.call(this, ctx); }),

    listMessages: implement(contract.listMessages, async (ctx) => {
      const page = readPageRequest(ctx.params);
      const p = ctx.params;
      const where: Record<string, unknown> = {
        ...scopeOf(ctx),
        ...(p.requestRef ? { requestRef: p.requestRef } : {}), ...(p.siren ? { taxpayerSiren: p.siren } : {}), ...(p.state ? { state: p.state } : {}),
        ...(p.messageType ? { messageType: p.messageType } : {}), ...(p.dispatched !== undefined ? { dispatched: p.dispatched } : {}),
      };
      const em = emOf(ctx);
      const [rows, total] = await Promise.all([
        em.find(PortabilityMessage, page.after ? { ...where, id: { $lt: page.after } } : where, { orderBy: { id: 'desc' }, limit: page.limit + 1 }),
        em.fork().count(PortabilityMessage, where),
      ]);
      return { ...toPage(rows, page, (r) => r.id, view), total };
    }),

    getMessage: implement(contract.getMessage, async (ctx) => {
      const m = await emOf(ctx).findOne(PortabilityMessage, { id: ctx.params.id, ...scopeOf(ctx) });
      if (!m) throw new DomainError('RESOURCE_NOT_FOUND', `Portability message '${ctx.params.id}' was not found`);
      return proof(m);
    }),

    parseMessage: implement(contract.parseMessage, async (ctx) => {
      const parsed = mapped(() => parseSubject(ctx.params.subject));
      const fields = ctx.params.csvRow !== undefined ? mapped(() => parseCsvRow(ctx.params.csvRow!)) : undefined;
      return { ...parsed, ...(fields ? { fields } : {}) };
    }),

    listPlatforms: implement(contract.listPlatforms, async function (this: MessagesThis, ctx) {
      const signedIn = (ctx.meta as RequestMeta).auth !== undefined;
      const rows = searchRegistry(this.registry, ctx.params.q, ctx.params.status);
      return { data: rows.map((r) => platformView(r, signedIn)), total: rows.length, source: this.registry.source, snapshotDate: this.registry.snapshotDate };
    }),

    accessPoint: implement(contract.accessPoint, async (ctx) => resolveAccessPoint(ctx, ctx.params.participantId)),

    suggestCompanies: implement(contract.suggestCompanies, async (ctx) => suggestCompanies(ctx, ctx.params.q, ctx.params.country)),
  },
};

export default PortabilityMessagesService;
