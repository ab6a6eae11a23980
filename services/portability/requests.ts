/**
 * Portability requests: filing one (its mandate, legal clocks and the first rows of its evidence
 * chain) and reading one — the state folded from the chain on every read, after writing the
 * transitions the platform clock makes due (tacit acceptance, execution and its routing switch,
 * completion; fold.ts has the table). Messages of the other platform arrive as
 * `portability.message.recorded` events and are chained once each (by message id).
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { principalOf, type Principal } from '../shared/auth.ts';
import { companyClock, type Clock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { DomainError, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { appendUnderLock, createChain, loadChain, type RowPayload } from './chain-store.ts';
import type { JobInput } from '../shared/scheduler/scheduler.ts';
import { manifestSha256, verifyChain, type EvidenceRowData, type JsonValue } from './evidence-chain.ts';
import { foldRequest, pendingTransition, type FoldedRequest } from './fold.ts';
import { addBusinessDays, DECISION_BUSINESS_DAYS, DEFAULT_SERVICE_MONTHS, defaultEffectiveDate, legalClocks, parisDate, parisMidnight } from './legal-clocks.ts';
import { mandateGaps, mandateSha256, type MandateTerms } from './mandate.ts';
import { PortabilityRequest } from './portability.entity.ts';
import { classifyTaxpayer, defaultAddressScope } from './taxpayer.ts';
import { resolveTaxpayer } from './resolve.ts';
import { readAnnuaire, checkDate, switchRouting, type RoutingSwitch } from './routing.ts';
import { STATUS_CODES, type Clocks, type CreateRequestParams, type PortabilityMessageRecorded, type RequestView, type Taxpayer } from './portability.contract.ts';

const issue = (field: string, rule: string, message: string) => ({ field, rule, message });

/** What the first row (`request.created`) holds. */
interface Filing {
  taxpayer: Taxpayer;
  mandate: MandateTerms;
  clocks: Clocks;
  serviceMonths: number;
  filedAt: string;
}

/** A timestamp the caller asserts (ISO 8601 with an offset), never after `now`. */
export function assertedInstant(value: string, field: string, now: Date): Date {
  const m = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  const at = m ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime()) || checkDate(m![1]!, field) !== m![1]) {
    throw new DomainError('INVALID_DATE', `${field} must be an ISO 8601 timestamp with its offset, got ${JSON.stringify(value)}`, { details: [issue(field, 'iso8601', 'not ISO 8601 with offset')] });
  }
  if (at.getTime() > now.getTime()) {
    throw new DomainError('INVALID_REQUEST', `${field} ${value} is in the future (platform time ${now.toISOString()}): a signature is recorded once it happened`, { details: [issue(field, 'notFuture', 'in the future')] });
  }
  return at;
}

export async function requestOf(em: EntityManager, auth: Principal, requestRef: string): Promise<PortabilityRequest> {
  const request = await em.findOne(PortabilityRequest, { requestRef, organizationId: auth.organizationId, livemode: auth.livemode }, { disableIdentityMap: true });
  if (!request) throw notFound('Portability request', requestRef);
  return request;
}

export const clockOf = (em: EntityManager, request: PortabilityRequest): Promise<Clock> => companyClock(em, request.clockCompanyId);

/**
 * The filing as the first row holds it, when that row verifies; a first row that does not (changed
 * or taken away) is not believed: the request then shows only what its own record says.
 */
function filingOf(trusted: readonly EvidenceRowData[], request: PortabilityRequest): Filing {
  const first = trusted.find((r) => r.seq === 1 && r.kind === 'request.created');
  if (first) return first.payload as unknown as Filing;
  const filedAt = request.createdAt.toISOString();
  return {
    taxpayer: { name: null, country: null, registrationNumber: request.siren ?? null, peppolId: null, addressingIdentifier: request.siren ?? null, resolvedFrom: 'identifier' },
    mandate: { reference: '', requestRef: request.requestRef, taxpayerId: request.siren ?? null, taxpayerName: null, incomingPlatform: null, outgoingPlatform: null, effectiveDate: null, addressScope: [], signatory: null },
    clocks: { notifyBy: filedAt, objectionWindowEnds: filedAt, annuaireUpdateBy: filedAt, continuityUntil: filedAt.slice(0, 10) },
    serviceMonths: DEFAULT_SERVICE_MONTHS, filedAt,
  };
}

export interface ReadRequest {
  request: PortabilityRequest;
  rows: EvidenceRowData[];
  /** The rows the walk verified (seq 1 up to the break): the only ones anything is folded or vouched from. */
  trusted: EvidenceRowData[];
  filing: Filing;
  folded: FoldedRequest;
  verification: ReturnType<typeof verifyChain>;
}

/** Rows, verification and the state folded from the verified part of the chain. */
export async function readRequest(em: EntityManager, known: PortabilityRequest): Promise<ReadRequest> {
  const chain = await loadChain(em, known.requestRef);
  if (!chain) throw notFound('Portability request', known.requestRef);
  const { request, rows } = chain;
  const verification = verifyChain(rows, request.headSeq);
  // Only the rows the walk verified (seq 1 up to the break): a row moved out of its place is not one of them.
  const trusted = verification.brokenAt === null ? rows : rows.filter((r) => r.seq >= 1 && r.seq < verification.brokenAt!);
  const filing = filingOf(trusted, request);
  return { request, rows, trusted, filing, folded: foldRequest(trusted, filing.clocks), verification };
}

export function requestView(r: ReadRequest): RequestView {
  const { filing, folded } = r;
  const signature = folded.signature;
  return {
    requestRef: r.request.requestRef,
    organizationId: r.request.organizationId,
    state: folded.state,
    statusCode: STATUS_CODES[folded.state],
    taxpayer: filing.taxpayer,
    mandate: {
      reference: filing.mandate.reference, taxpayerId: filing.mandate.taxpayerId, incomingPlatform: filing.mandate.incomingPlatform,
      outgoingPlatform: filing.mandate.outgoingPlatform, effectiveDate: filing.mandate.effectiveDate, addressScope: filing.mandate.addressScope,
      signatory: filing.mandate.signatory, signedAt: signature?.signedAt ?? null, signedBy: signature?.signedBy ?? null,
      signatureMethod: signature?.method ?? null, agreementSha256: signature?.agreementSha256 ?? null, mandateSha256: mandateSha256(filing.mandate),
    },
    mandateGaps: mandateGaps(filing.mandate, signature),
    clocks: filing.clocks,
    tacitApproval: folded.tacitApproval,
    objections: folded.objections,
    evidence: { verification: r.verification, manifestSha256: manifestSha256(r.rows) },
    createdAt: filing.filedAt,
  };
}

/** The scheduler's job that wakes a request on its effective date (execution-job.ts runs it). */
export const EXECUTE_JOB = 'portability.execute';

/** Due at 00:00 Paris of the effective date, in the business time of the request's clock company. */
export const executionJob = (requestRef: string, clockCompanyId: string | null, effectiveDate: string): JobInput => ({
  kind: EXECUTE_JOB, ref: requestRef, companyId: clockCompanyId, dueAt: parisMidnight(effectiveDate),
});

const asJson = (v: unknown): JsonValue => JSON.parse(JSON.stringify(v ?? null)) as JsonValue;

export async function createRequest(ctx: Context<CreateRequestParams>, em: EntityManager): Promise<RequestView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  const id = classifyTaxpayer(p.taxpayer, p.country);
  const taxpayer = await resolveTaxpayer(ctx, id, auth.livemode, p.taxpayer);
  const clock = await companyClock(em, auth.companyId);
  const now = clock.now();

  let effectiveDate = defaultEffectiveDate(now);
  if (p.effectiveDate !== undefined) {
    effectiveDate = checkDate(p.effectiveDate, 'effectiveDate');
    const lastDecisionDay = addBusinessDays(parisDate(now), DECISION_BUSINESS_DAYS);
    if (effectiveDate <= lastDecisionDay) {
      throw new DomainError('INVALID_REQUEST', `effectiveDate ${effectiveDate} falls before the objection window could close (${lastDecisionDay}); the earliest is ${defaultEffectiveDate(now)}`, { details: [issue('effectiveDate', 'afterObjectionWindow', `after ${lastDecisionDay}`)] });
    }
  }
  if (p.signatureMethod === 'approval' && p.signedAt !== undefined) {
    throw new DomainError('INVALID_REQUEST', 'An approval signature is recorded from its approval check (POST …/mandate/signature), not asserted with signedAt', { details: [issue('signatureMethod', 'approvalNotAsserted', 'approval signatures come from the approval check')] });
  }
  const signedAt = p.signedAt !== undefined ? assertedInstant(p.signedAt, 'signedAt', now) : null;
  const serviceMonths = p.overrides?.minimalServiceMonths ?? DEFAULT_SERVICE_MONTHS;
  const requestRef = newId('portabilityRequest');
  const mandate: MandateTerms = {
    reference: `MDT-${requestRef.slice(4)}`,
    requestRef,
    taxpayerId: taxpayer.registrationNumber ?? taxpayer.peppolId,
    taxpayerName: taxpayer.name,
    incomingPlatform: loadConfig().portability.paMatricule || null,
    outgoingPlatform: p.outgoingPlatform?.matricule ?? p.outgoingPlatform?.name ?? null,
    effectiveDate,
    addressScope: p.addressScope ?? defaultAddressScope(taxpayer, id),
    signatory: p.signatory ?? null,
  };
  const filing: Filing = { taxpayer, mandate, clocks: legalClocks(now, effectiveDate, serviceMonths), serviceMonths, filedAt: now.toISOString() };
  const facts: Array<{ kind: string; payload: RowPayload }> = [{ kind: 'request.created', payload: { ...(asJson(filing) as RowPayload), outgoingPlatform: asJson(p.outgoingPlatform ?? null) } }];
  if (signedAt) {
    facts.push({ kind: 'signature.recorded', payload: { method: p.signatureMethod ?? 'external', signedAt: signedAt.toISOString(), signedBy: p.signatory?.name ?? null, agreementSha256: null, assertedBy: auth.userId ?? auth.apiKeyId } });
  }
  await createChain(em, {
    requestRef, organizationId: auth.organizationId, livemode: auth.livemode, clockCompanyId: auth.companyId,
    siren: taxpayer.country === 'FR' ? taxpayer.registrationNumber : null,
  }, facts, now, [executionJob(requestRef, auth.companyId, effectiveDate)]);
  const request = await requestOf(em, auth, requestRef);
  return requestView(await readRequest(em, request));
}

/**
 * The gaining switch an executing request makes for its SIREN (this platform is the mandate's
 * incoming one): effective on the mandate's date, on the connection the request was filed for (its
 * clock company; none: the organization's address). A SIREN-level line when the address scope
 * moves the SIREN itself, else the line of the establishment the scope (or the filing) names.
 */
export function executionSwitch(read: ReadRequest): RoutingSwitch | null {
  const { request, filing } = read;
  const siren = request.siren;
  const effectiveDate = filing.mandate.effectiveDate;
  if (!siren || !effectiveDate) return null;
  const scope = filing.mandate.addressScope;
  const establishment = [...scope, filing.taxpayer.addressingIdentifier ?? '']
    .map((a) => /^\d{9}_(\d{14})$/.exec(a)?.[1] ?? a)
    .find((a) => /^\d{14}$/.test(a) && a.startsWith(siren));
  return {
    organizationId: request.organizationId, livemode: request.livemode, siren, siret: scope.includes(siren) ? null : establishment ?? null,
    role: 'GAINING_PA', effectiveDate, connectionId: request.clockCompanyId ?? null, minimalServiceMonths: filing.serviceMonths,
  };
}

/** Transitions a read can write in a row: tacit acceptance, execution, the switch, completion, and one spare for a racing message. */
const MAX_STEPS_PER_READ = 5;

/**
 * Writes the transitions the clock made due since the last read (at most one of each), then
 * answers the folded state. A broken chain is reported, never extended. An executing request's
 * routing switch is made here, before (never inside) the transaction that chains `routing.switched`;
 * it is idempotent on the SIREN, so racing readers or replicas make one switch, and the chain
 * takes one row (the append is refused once the head moved).
 */
export async function advanceAndRead(em: EntityManager, request: PortabilityRequest): Promise<ReadRequest> {
  const clock = await clockOf(em, request);
  for (let step = 0; step < MAX_STEPS_PER_READ; step++) {
    const read = await readRequest(em, request);
    if (!read.verification.intact) return read;
    const now = clock.now();
    const due = pendingTransition(read.folded, read.filing.clocks, read.filing.mandate.effectiveDate ?? '9999-12-31', now);
    if (!due) return read;
    let fact: { kind: string; payload: RowPayload };
    if (due === 'tacit.accepted') fact = { kind: due, payload: { objectionWindowEnds: read.filing.clocks.objectionWindowEnds, objections: read.folded.objections.length } };
    else if (due === 'execution.started') fact = { kind: due, payload: { effectiveDate: read.filing.mandate.effectiveDate } };
    else if (due === 'routing.switch') {
      const line = executionSwitch(read);
      if (!line) return read;
      const { routing } = await switchRouting(em, line);
      fact = {
        kind: 'routing.switched',
        payload: { routingId: routing.id, role: routing.role, siren: routing.siren, siret: routing.siret ?? null, effectiveDate: routing.effectiveDate, connectionId: routing.connectionId ?? null },
      };
    } else {
      if (!request.siren) return read;
      try {
        const annuaire = await readAnnuaire(em, request.siren, request.livemode, clock);
        if (!annuaire.isFlowie) return read;
        fact = { kind: 'routing.confirmed', payload: { currentPaMatricule: annuaire.currentPaMatricule, effectiveFrom: annuaire.effectiveFrom, level: annuaire.level } };
      } catch (err) {
        fact = { kind: 'routing.failed', payload: { reason: `The annuaire could not be read: ${(err as Error).message}` } };
      }
    }
    const seenHead = read.request.headSeq;
    await appendUnderLock(em, request.requestRef, now, (rows) => (rows.length && rows[rows.length - 1]!.seq !== seenHead ? null : fact));
    request = await em.findOneOrFail(PortabilityRequest, { requestRef: request.requestRef }, { disableIdentityMap: true });
  }
  return readRequest(em, request);
}

export async function getRequest(ctx: Context<{ requestRef: string }>, em: EntityManager): Promise<RequestView> {
  const request = await requestOf(em, principalOf(ctx), ctx.params.requestRef);
  return requestView(await advanceAndRead(em, request));
}

/** Chains a message of the other platform once (by message id); messages of requests not ours are ignored. */
export async function recordMessage(em: EntityManager, message: PortabilityMessageRecorded): Promise<boolean> {
  const request = await em.findOne(PortabilityRequest, { requestRef: message.requestRef, organizationId: message.organizationId }, { disableIdentityMap: true });
  if (!request) return false;
  const now = (await clockOf(em, request)).now();
  const payload: RowPayload = {
    messageId: message.messageId, messageType: message.messageType, state: message.state, statusCode: message.statusCode,
    directionRole: message.directionRole ?? null, taxpayerSiren: message.taxpayerSiren ?? null, reasonCode: message.reasonCode ?? null,
    reasonText: message.reasonText ?? null, createdAt: message.createdAt, csvSha256: message.csvSha256 ?? null,
  };
  const appended = await appendUnderLock(em, request.requestRef, now, (rows) => (
    rows.some((r) => r.kind === 'message.recorded' && r.payload.messageId === message.messageId) ? null : { kind: 'message.recorded', payload }
  ));
  return appended !== null;
}
