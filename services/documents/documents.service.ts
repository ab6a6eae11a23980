/**
 * documents: the aggregate of sent and received documents. One service, one module per job:
 * send.ts (the send pipeline), delivery.ts (delivery on the scheduler), inbox.ts (the inbound
 * hand-off), reads.ts (lists and search), representations.ts, lifecycle-actions.ts (the French
 * lifecycle and document actions). Recipients are found through the connectors' discovery and the
 * directory service; every event is written through the outbox in the transaction of its change.
 */
import type { Service, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { OutboxMixin } from '../../mixins/outbox.mixin.ts';
import { SchedulerMixin } from '../../mixins/scheduler.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf, type RequestMeta } from '../shared/auth.ts';
import { acquireWorkerPool, releaseWorkerPool } from '../shared/worker-pool.ts';
import { PARSE_TASKS } from './parse.tasks.ts';
import { findDocument } from './access.ts';
import { documentView } from './document-views.ts';
import { Document } from './document.entity.ts';
import { sendOne, sendBatch } from './send.ts';
import { DELIVER_JOB, createDeliveryState, deliverDue, type DeliveryThis } from './delivery.ts';
import { FOLLOW_UP_JOB, handleFollowUps, runFollowUps } from './follow-ups.ts';
import { respondToSender } from './responses.ts';
import { reportToTaxPlatform, stepCdar } from './compliance-reports.ts';
import { evidence, evidenceBundle } from './evidence.ts';
import { receiveInbound } from './inbox.ts';
import { recordNetworkStatus } from './network-status.ts';
import { peppolExchanges } from './peppol-exchanges.ts';
import { listDocuments, runSearch } from './reads.ts';
import * as representations from './representations.ts';
import { documentAction, lifecycleView, postLifecycle } from './lifecycle-actions.ts';
import { recordDocumentUpdate } from './updates.ts';
import type { DocsThis } from './service-state.ts';
import { documentUsage, resetSandboxDocuments } from './usage.ts';
import { artefactsOf, releaseArtefacts } from './originals.ts';
import * as contract from './documents.contract.ts';
import * as archive from './archive.contract.ts';
import { exportArchive } from './archive-export.ts';
import * as artefactRetention from './artefacts.contract.ts';
import { listHolds, placeHold, releaseHold, runArtefactSweep, scheduleArtefactSweep } from './artefact-sweep.ts';

// What a lifecycle step sets going beyond the platform: the buyer's answer to the sender, the status to the tax platform.
handleFollowUps('respond', respondToSender);
handleFollowUps('report', reportToTaxPlatform);

const DocumentsService: ServiceSchema = {
  name: 'documents',
  mixins: [OrmMixin, OutboxMixin, SchedulerMixin({
    [DELIVER_JOB]: { batch: 50, async handle(this: Service, jobs, em) { await deliverDue.call(this as DeliveryThis, jobs, em); } },
    // Invoice Responses to senders and reports to tax platforms, after the lifecycle steps that call for them.
    [FOLLOW_UP_JOB]: { batch: 20, parallel: 2, handle: runFollowUps },
  })],

  created() {
    (this as unknown as DeliveryThis).delivery = createDeliveryState();
  },

  started() {
    const self = this as unknown as DocsThis;
    self.workers = acquireWorkerPool();
    self.workers.preload(PARSE_TASKS);
    // The artefact store from EINV_ARTEFACTS_* now: a wrong setting stops the start, not the first send.
    artefactsOf(this.broker);
    self.artefactSweep = scheduleArtefactSweep(this.broker, this.logger);
  },

  async stopped() {
    // Deliveries still talking to a connector record their outcome before the database closes;
    // those still waiting for a slot go back to the queue.
    const delivery = (this as unknown as DeliveryThis).delivery;
    delivery.stopping = true;
    await Promise.allSettled([...delivery.inflight]);
    await releaseWorkerPool((this as unknown as DocsThis).workers);
    await (this as unknown as DocsThis).artefactSweep?.stop();
    releaseArtefacts(this.broker);
  },

  actions: {
    send: implement(contract.send, async function (this: DocsThis, ctx) { return sendOne.call(this, ctx, ctx.params, (ctx.meta as RequestMeta).idempotency); }),
    sendBatch: implement(contract.sendBatch, async function (this: DocsThis, ctx) { return sendBatch.call(this, ctx); }),
    list: implement(contract.list, listDocuments),
    search: implement(contract.search, async (ctx) => runSearch(ctx, ctx.params)),
    get: implement(contract.get, async (ctx) => documentView(await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id))),
    originalRepresentation: implement(contract.originalRepresentation, representations.original),
    exportArchive: implement(archive.exportArchive, exportArchive),
    placeArtefactHold: implement(artefactRetention.placeArtefactHold, async (ctx) => placeHold(ctx, ctx.params)),
    releaseArtefactHold: implement(artefactRetention.releaseArtefactHold, async (ctx) => releaseHold(ctx, ctx.params)),
    listArtefactHolds: implement(artefactRetention.listArtefactHolds, async (ctx) => listHolds(ctx, ctx.params)),
    createHold: implement(artefactRetention.createHold, async (ctx) => placeHold(ctx, { ...ctx.params, organizationId: principalOf(ctx).organizationId })),
    listHolds: implement(artefactRetention.listHolds, async (ctx) => listHolds(ctx, { organizationId: principalOf(ctx).organizationId })),
    releaseHold: implement(artefactRetention.releaseHold, async (ctx) => releaseHold(ctx, { ...ctx.params, organizationId: principalOf(ctx).organizationId })),
    sweepArtefacts: implement(artefactRetention.sweepArtefacts, async function (this: DocsThis) { return runArtefactSweep(this.broker, this.logger); }),
    xmlRepresentation: implement(contract.xmlRepresentation, representations.xml),
    jsonRepresentation: implement(contract.jsonRepresentation, representations.json),
    pdfRepresentation: implement(contract.pdfRepresentation, async function (this: DocsThis, ctx) { return representations.pdf.call(this, ctx); }),
    previewRepresentation: implement(contract.previewRepresentation, async function (this: DocsThis, ctx) { return representations.preview.call(this, ctx); }),
    facturxRepresentation: implement(contract.facturxRepresentation, async function (this: DocsThis, ctx) { return representations.facturx.call(this, ctx); }),
    clearancePart: implement(contract.clearancePart, representations.clearancePart),
    getEvidence: implement(contract.getEvidence, evidence),
    getEvidenceBundle: implement(contract.getEvidenceBundle, evidenceBundle),
    getLifecycle: implement(contract.getLifecycle, async (ctx) => lifecycleView(await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id))),
    lifecycleCdar: implement(contract.lifecycleCdar, stepCdar),
    postLifecycle: implement(contract.postLifecycle, async function (this: DocsThis, ctx) { return postLifecycle.call(this, ctx); }),
    documentAction: implement(contract.documentAction, async function (this: DocsThis, ctx) { return documentAction.call(this, ctx); }),
    recordNetworkStatus: implement(contract.recordNetworkStatus, async function (this: DocsThis, ctx) { return recordNetworkStatus.call(this, ctx); }),
    receiveInbound: implement(contract.receiveInbound, async function (this: DocsThis, ctx) { return receiveInbound.call(this, ctx); }),
    peppolExchanges: implement(contract.peppolExchanges, peppolExchanges),
    resetSandbox: implement(contract.resetSandbox, resetSandboxDocuments),
    usage: implement(contract.usage, documentUsage),
    flowFacts: implement(contract.flowFacts, async (ctx) => {
      if (!ctx.params.ids.length) return [];
      const docs = await emOf(ctx).find(Document, { id: { $in: [...new Set(ctx.params.ids)] }, organizationId: ctx.params.organizationId });
      return docs.map((doc) => ({ document: documentView(doc), lifecycle: lifecycleView(doc) }));
    }),
    recordDocumentUpdate: implement(contract.recordDocumentUpdate, async function (this: DocsThis, ctx) { return recordDocumentUpdate.call(this, ctx); }),
  },
};

export default DocumentsService;
