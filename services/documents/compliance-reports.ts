/**
 * France's reported lifecycle statuses (200 deposited, 210 refused, 212 collected, 213 rejected) of a
 * French-reform document, filed with the tax platform (the PPF) as the CDAR D22B status message
 * through the connector whose manifest reports for FR: a follow-up of the step (follow-ups.ts),
 * written with it, never lost and never filed twice (the report id is the step's), with
 * `compliance.reported` on the outcome: `reported` with the platform's reference, or `failed` with
 * its code (PPF 00025 …) or with what the document lacks for the message. No reporting connector
 * configured for the mode: nothing is filed, and the log says so.
 */
import type { Context, Service } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { findDocument } from './access.ts';
import { isFrenchReform } from './reform.ts';
import type { OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { call } from '../shared/call.ts';
import { adapterContracts, registeredManifests } from '../connectors/adapters.contract.ts';
import { tenantDefaults } from '../tenancy/tenancy.contract.ts';
import type { ConnectorManifest, ReportMessage, ReportResult } from '../../adapters/sdk/index.ts';
import { lifecycleToCdar, MappingError, type CanonicalInvoice } from '../../mappings/index.ts';
import type { CdarEmitter } from '../../mappings/cdar/index.ts';
import type { Document, LifecycleEntry } from './document.entity.ts';
import { followUpCallOptions, type FollowUpAnswer, type FollowUpHandler } from './follow-ups.ts';

/** The reporting connector for a country in a mode: capability `report`, the country named (not `*`). */
export function reportingConnector(manifests: readonly ConnectorManifest[], country: string, livemode: boolean): ConnectorManifest | undefined {
  const mode = livemode ? 'live' : 'test';
  return manifests.filter((m) => m.capabilities.report && m.modes.includes(mode) && m.countries.includes(country)).sort((a, b) => a.id.localeCompare(b.id))[0];
}

/** The CDAR of one step, or what keeps it from being made (a MappingError's first issues). */
export function cdarReportOf(doc: Document, entry: LifecycleEntry, index: number, now: Date): { ok: true; xml: string } | { ok: false; code: string; message: string } {
  if (!doc.normalized) return { ok: false, code: 'CDAR_NOT_BUILT', message: `document ${doc.id} has no structured invoice to report` };
  try {
    const xml = lifecycleToCdar({
      messageId: `${doc.id}-${index}`, issuedAt: now.toISOString(), invoice: doc.normalized as unknown as CanonicalInvoice,
      step: {
        code: entry.code, emittedBy: entry.emittedBy as CdarEmitter, at: entry.at,
        ...(entry.reason ? { reason: entry.reason } : {}), ...(entry.reasonCode ? { reasonCode: entry.reasonCode } : {}), ...(entry.note ? { note: entry.note } : {}),
        ...(entry.amounts ? { amounts: entry.amounts } : {}), ...(entry.paymentDate ? { paymentDate: entry.paymentDate } : {}),
        ...(entry.paymentReference ? { paymentReference: entry.paymentReference } : {}), ...(entry.paymentCurrency ? { paymentCurrency: entry.paymentCurrency } : {}),
        ...(entry.partial ? { partial: true } : {}),
      },
    });
    return { ok: true, xml };
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    const issues = err.details.slice(0, 5).map((d) => `${d.field}: ${d.message}`).join('; ');
    return { ok: false, code: 'CDAR_NOT_BUILT', message: `the status message cannot be made: ${issues || err.message}` };
  }
}

/** GET …/lifecycle/:step/cdar: one step's CDAR, built as it is filed. */
export async function stepCdar(ctx: Context<{ id: string; step: number }>): Promise<string> {
  const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
  const entry = doc.lifecycle[ctx.params.step];
  if (!entry) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no lifecycle step ${ctx.params.step} (it has ${doc.lifecycle.length})`);
  if (!isFrenchReform(doc)) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' is not under the French e-invoicing reform: its lifecycle has no CDAR form`);
  const built = cdarReportOf(doc, entry, ctx.params.step, new Date(entry.at));
  if (!built.ok) throw new DomainError('UBL_VALIDATION_FAILED', `No valid CDAR can be made for step ${ctx.params.step} (${entry.code}): ${built.message}`);
  (ctx.meta as { $responseType?: string }).$responseType = 'application/xml; charset=utf-8';
  return built.xml;
}

/**
 * A French status reported to the tax platform through the reporting connector for France (the CDAR
 * it files). An organization whose platform turned automatic reporting off for France
 * (`defaults.autoCompliance.FR: false`, PATCH /v1/platform/settings) files nothing: the step
 * records `disabled` and no `compliance.reported` is sent. The setting is read when the follow-up
 * runs (outside any transaction), so a change applies to every status not yet filed.
 */
export const reportToTaxPlatform: FollowUpHandler = async function (this: Service, doc, entry, index, attempts, now): Promise<FollowUpAnswer> {
  const defaults = await call(this.broker, tenantDefaults, { organizationId: doc.organizationId });
  if (defaults.autoCompliance.FR === false) {
    return { kind: 'done', outcome: { via: 'settings', status: 'disabled', at: now.toISOString(), attempts, message: 'Automatic reporting to the French tax platform is turned off for this organization (defaults.autoCompliance.FR)' } };
  }
  const manifest = reportingConnector(registeredManifests(this.broker), 'FR', doc.livemode);
  if (!manifest) {
    this.logger.warn(`status ${entry.code} of ${doc.id} is not reported: no connector reports to the French tax platform in ${doc.livemode ? 'live' : 'test'} mode`);
    return { kind: 'skip' };
  }
  const via = manifest.id;
  const reportedTo = 'PPF';
  const at = now.toISOString();
  const event = (status: 'reported' | 'failed', extra: Record<string, unknown>) => (d: Document): OutboxEventInput => ({
    organizationId: d.organizationId, companyId: d.companyId, livemode: d.livemode, type: 'compliance.reported',
    data: { documentId: d.id, reportedTo, status, lifecycleCode: entry.code, connectorId: via, ...extra },
  });
  const built = cdarReportOf(doc, entry, index, now);
  if (!built.ok) {
    // Nothing the network can change: the document lacks what the status message needs.
    return { kind: 'done', outcome: { via, status: 'failed', at, attempts, errorCode: built.code, message: built.message }, event: event('failed', { errorCode: built.code, errorMessage: built.message }) };
  }
  const message: ReportMessage = {
    reportId: `${doc.id}:${index}`, livemode: doc.livemode, kind: 'lifecycle', country: 'FR',
    reporter: { peppolId: doc.direction === 'outgoing' ? doc.senderPeppolId ?? null : doc.receiverPeppolId ?? null, name: null, organizationId: doc.organizationId, companyId: doc.companyId },
    documentIds: [doc.id],
    payload: { content: Buffer.from(built.xml).toString('base64'), contentType: 'application/xml', xml: built.xml, syntax: 'cdar-d22b' },
  };
  let result: ReportResult;
  try {
    result = await call(this.broker, adapterContracts(via).report, message, followUpCallOptions());
  } catch (err) {
    result = { outcome: 'transient', errorMessage: (err as Error).message };
  }
  switch (result.outcome) {
    case 'accepted':
      return { kind: 'done', outcome: { via, status: 'reported', at, attempts, messageId: result.networkReportId }, event: event('reported', { networkReportId: result.networkReportId }) };
    case 'rejected':
      return { kind: 'done', outcome: { via, status: 'failed', at, attempts, errorCode: result.errorCode, message: result.errorMessage }, event: event('failed', { errorCode: result.errorCode, errorMessage: result.errorMessage }) };
    case 'transient': {
      const errorCode = result.errorCode ?? 'TRANSPORT_FAILURE';
      return { kind: 'transient', message: result.errorMessage, failed: { via, status: 'failed', at, attempts, errorCode, message: result.errorMessage }, event: event('failed', { errorCode, errorMessage: result.errorMessage }) };
    }
  }
};
