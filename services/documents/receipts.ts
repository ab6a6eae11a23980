/**
 * The other artefacts of a document's legal record, beside its original: the tax authority's
 * receipt and signed version (`clearance.receipt`, `clearance.legalOriginal`) and the network's
 * signed receipt (`evidence.receipt`). Connectors give them base64 (adapters/sdk); the document keeps
 * them in the artefact store and its JSON names them `sha256:<hex>` in place of the base64 (base64
 * has no colon: the two forms never meet). Rows from before the store keep base64 until
 * scripts/artefacts-migrate.ts moves them; every reader takes both.
 *
 * They are kept as long as the document's original (its retention), or the longest period when the
 * original is not in the store yet. Stored before the transaction that records them, like originals.
 * If the store fails after a connector delivered, the receipts stay inline (base64) rather than hold
 * back recording the delivery: nothing is lost, and the migration moves them later.
 */
import type { ServiceBroker } from 'moleculer';
import type { Clearance, ExchangeEvidence, SendResult, StatusResult } from '../../adapters/sdk/index.ts';
import { systemClock } from '../shared/clock.ts';
import { retainUntil, retentionPolicyFromEnv } from '../shared/artefacts/retention.ts';
import { artefactsOf, namespaceOf } from './originals.ts';
import type { ClearanceRecord, Document } from './document.entity.ts';
import type { Artefacts } from '../shared/artefacts/artefacts.ts';

type Owner = Pick<Document, 'organizationId' | 'livemode' | 'originalSha256'>;

const REFERENCE = /^sha256:([0-9a-f]{64})$/;

/** The hash a stored part names, or null for inline base64. */
export function referencedHash(content: string | undefined | null): string | null {
  return content ? REFERENCE.exec(content)?.[1] ?? null : null;
}

/** The bytes of a part: from the store when it names them, else its base64. */
export async function partBytes(broker: ServiceBroker, owner: Pick<Document, 'organizationId' | 'livemode'>, content: string): Promise<Buffer> {
  const hash = referencedHash(content);
  return hash ? artefactsOf(broker).get(namespaceOf(owner), hash) : Buffer.from(content, 'base64');
}

async function storePart(artefacts: Artefacts, owner: Owner, base64: string, contentType: string): Promise<string> {
  if (referencedHash(base64)) return base64;
  const namespace = namespaceOf(owner);
  const original = owner.originalSha256 ? await artefacts.stat(namespace, owner.originalSha256) : null;
  const until = original ? original.retainUntil : retainUntil(retentionPolicyFromEnv(), { livemode: owner.livemode, country: null, storedAt: systemClock.now() });
  const { sha256 } = await artefacts.put({ namespace, bytes: Buffer.from(base64, 'base64'), contentType, retainUntil: until, country: original?.country ?? null });
  return `sha256:${sha256}`;
}

/** The evidence with its receipt in the store. */
export async function storedEvidence(artefacts: Artefacts, owner: Owner, evidence: ExchangeEvidence): Promise<ExchangeEvidence> {
  return evidence.receipt ? { ...evidence, receipt: await storePart(artefacts, owner, evidence.receipt, 'application/xml') } : evidence;
}

/** The clearance with its receipt and signed original in the store. */
export async function storedClearance<T extends Partial<Clearance>>(artefacts: Artefacts, owner: Owner, clearance: T): Promise<T> {
  const out = { ...clearance };
  if (out.receipt) out.receipt = { ...out.receipt, content: await storePart(artefacts, owner, out.receipt.content, out.receipt.contentType) };
  if (out.legalOriginal) out.legalOriginal = { ...out.legalOriginal, content: await storePart(artefacts, owner, out.legalOriginal.content, out.legalOriginal.contentType) };
  return out;
}

/**
 * A connector's outcome with its receipts in the store (before the transaction that records it);
 * unchanged, receipts inline, if the store fails.
 */
export async function withStoredReceipts<T extends SendResult | StatusResult>(broker: ServiceBroker, owner: Owner, outcome: T): Promise<T> {
  if (outcome.outcome !== 'delivered') return outcome;
  const o = outcome as T & { evidence?: ExchangeEvidence; clearance?: Clearance };
  if (!o.evidence?.receipt && !o.clearance?.receipt && !o.clearance?.legalOriginal) return outcome;
  try {
    return {
      ...o,
      ...(o.evidence ? { evidence: await storedEvidence(artefactsOf(broker), owner, o.evidence) } : {}),
      ...(o.clearance ? { clearance: await storedClearance(artefactsOf(broker), owner, o.clearance) } : {}),
    };
  } catch (err) {
    broker.logger.warn(`receipts of ${owner.organizationId} kept inline: the artefact store failed (${(err as Error).message})`);
    return outcome;
  }
}

/** The evidence as the SDK promises it to connectors: the receipt in base64. */
export async function evidenceForConnector(broker: ServiceBroker, doc: Pick<Document, 'organizationId' | 'livemode' | 'evidence'>): Promise<ExchangeEvidence | null> {
  const e = doc.evidence;
  if (!e?.receipt || !referencedHash(e.receipt)) return e ?? null;
  return { ...e, receipt: (await partBytes(broker, doc, e.receipt)).toString('base64') };
}

/** The hashes a document's receipts name in the store. */
export function receiptHashes(clearance: ClearanceRecord | null | undefined, evidence: ExchangeEvidence | null | undefined): string[] {
  return [clearance?.receipt?.content, clearance?.legalOriginal?.content, evidence?.receipt].map(referencedHash).filter((h): h is string => h !== null);
}
