/**
 * A document's evidence: what proves its network exchange (as the connector recorded it with the
 * document: message id, SBDH instance id, hashes, the other access point, the signed receipt) and
 * the hash of the original kept as the legal record; also as one bundle this platform signs
 * (identity's key, never held here), which anyone can verify with the published JWKS.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf } from '../shared/auth.ts';
import { call } from '../shared/call.ts';
import { systemClock } from '../shared/clock.ts';
import { signStatement } from '../identity/identity.contract.ts';
import { findDocument } from './access.ts';
import type { EvidenceView } from './documents.contract.ts';
import { partBytes } from './receipts.ts';

type ResponseMeta = { $responseType?: string };

export async function evidence(ctx: Context<{ id: string }>): Promise<EvidenceView> {
  const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
  const e = doc.evidence;
  return {
    documentId: doc.id,
    direction: doc.direction as EvidenceView['direction'],
    network: doc.connectorId ?? null,
    deliveryStatus: doc.deliveryStatus,
    originalSha256: doc.originalSha256 ?? (doc.originalContent ? createHash('sha256').update(doc.originalContent).digest('hex') : null),
    exchange: e ? {
      messageId: e.messageId,
      instanceIdentifier: e.instanceIdentifier ?? null,
      exchangedAt: e.exchangedAt,
      payloadSha256: e.payloadSha256 ?? null,
      counterpartAccessPoint: e.counterpartAccessPoint ?? null,
      counterpartCertificate: e.counterpartCertificate ?? null,
      endpointUrl: e.endpointUrl ?? null,
      receipt: e.receipt ? (await partBytes(ctx.broker, doc, e.receipt)).toString('utf8') : null,
      receiptMessageId: e.receiptMessageId ?? null,
      details: e.details ?? {},
    } : null,
  };
}

export async function evidenceBundle(ctx: Context<{ id: string }>): Promise<string> {
  const view = await evidence(ctx);
  const statement = { statement: 'document-exchange-evidence', issuedAt: systemClock.now().toISOString(), organizationId: principalOf(ctx).organizationId, evidence: view };
  const { jws } = await call(ctx, signStatement, { payload: statement, type: 'evidence+jws' });
  (ctx.meta as ResponseMeta).$responseType = 'application/jose';
  return jws;
}
