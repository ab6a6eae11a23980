/**
 * The documents' side of sandbox reset and of usage statistics. Counts read one grouped query over
 * documents_usage_index (organization, mode, created_at): a month of one organization, never the table.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { DELIVER_JOB } from './delivery.ts';
import { FOLLOW_UP_JOB } from './follow-ups.ts';
import { purgeArtefacts } from './originals.ts';
import { receiptHashes } from './receipts.ts';
import type { ClearanceRecord } from './document.entity.ts';
import type { ExchangeEvidence } from '../../adapters/sdk/index.ts';
import type { DocumentUsage } from './documents.contract.ts';

/**
 * Test documents are no legal record: their rows go, and then their originals no other test
 * document names, through the artefact store (which would refuse anything still retained).
 */
export async function resetSandboxDocuments(ctx: Context<{ organizationId: string; companyId?: string }>): Promise<{ documents: number; scheduledJobs: number }> {
  const { deleted, originals } = await emOf(ctx).transactional(async (tx) => {
    const { organizationId, companyId } = ctx.params;
    const where = `organization_id = ? and not livemode${companyId ? ' and company_id = ?' : ''}`;
    const args = companyId ? [organizationId, companyId] : [organizationId];
    const sandboxDocuments = `select id from documents where ${where}`;
    // A follow-up's ref is `<document id>:<step>:<target>`; a delivery's is the document id.
    const jobs = await tx.execute<{ affectedRows?: number }>(
      `delete from scheduled_jobs where (kind = ? and ref in (${sandboxDocuments})) or (kind = ? and split_part(ref, ':', 1) in (${sandboxDocuments}))`,
      [DELIVER_JOB, ...args, FOLLOW_UP_JOB, ...args], 'run');
    const docs = await tx.execute<Array<{ original_sha256: string | null; clearance: ClearanceRecord | null; evidence: ExchangeEvidence | null }>>(`delete from documents where ${where} returning original_sha256, clearance, evidence`, args, 'all');
    return { deleted: { documents: docs.length, scheduledJobs: jobs.affectedRows ?? 0 }, originals: docs.flatMap((d) => [...(d.original_sha256 ? [d.original_sha256] : []), ...receiptHashes(d.clearance, d.evidence)]) };
  });
  // After the commit: the store may be remote, and no transaction waits on it.
  const purged = await purgeArtefacts(ctx.broker, emOf(ctx), { organizationId: ctx.params.organizationId, livemode: false }, originals);
  if (purged.kept.length) ctx.broker.logger.warn(`sandbox reset of ${ctx.params.organizationId}: ${purged.kept.length} original(s) left in the artefact store (${purged.kept[0]!.reason})`);
  return deleted;
}

interface UsageRow { company_id: string; direction: 'outgoing' | 'incoming'; type: string; status: string; delivery_status: string; invalid: boolean; n: string }

export async function documentUsage(ctx: Context<{ organizationId: string; livemode: boolean; companyId?: string; from: string; to: string }>): Promise<DocumentUsage> {
  const { organizationId, livemode, companyId, from, to } = ctx.params;
  const rows = await emOf(ctx).execute<UsageRow[]>(
    `select company_id, direction, type, status, delivery_status, coalesce((validation->>'valid')::boolean = false, false) as invalid, count(*) as n
     from documents
     where organization_id = ? and livemode = ? and created_at >= ? and created_at < ? and duplicate_of is null${companyId ? ' and company_id = ?' : ''}
     group by 1, 2, 3, 4, 5, 6`,
    [organizationId, livemode, new Date(from), new Date(to), ...(companyId ? [companyId] : [])], 'all');
  const usage: DocumentUsage = { sent: 0, received: 0, byType: {}, byStatus: {}, byDeliveryStatus: {}, receivedInvalid: 0, byCompany: {} };
  for (const r of rows) {
    const n = Number(r.n);
    const side = r.direction === 'outgoing' ? 'sent' : 'received';
    usage[side] += n;
    (usage.byType[r.type] ??= { sent: 0, received: 0 })[side] += n;
    (usage.byCompany[r.company_id] ??= { sent: 0, received: 0 })[side] += n;
    usage.byStatus[r.status] = (usage.byStatus[r.status] ?? 0) + n;
    if (r.direction === 'outgoing') usage.byDeliveryStatus[r.delivery_status] = (usage.byDeliveryStatus[r.delivery_status] ?? 0) + n;
    if (r.direction === 'incoming' && r.invalid) usage.receivedInvalid += n;
  }
  return usage;
}
