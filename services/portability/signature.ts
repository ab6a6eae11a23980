/**
 * The mandate's signature, three ways: asserted at filing (paper or external, `signedAt` given by
 * the caller), through an approval check (opened here, read back until it passes), or by depositing
 * the signed file. Whichever comes first is the signature: a second one is 409 SIGNATURE_EXISTS.
 * Calls to the approval service happen outside any transaction; the row is chained afterwards under
 * the request's lock, where the "already signed" rule is checked again.
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { principalOf } from '../shared/auth.ts';
import { call } from '../shared/call.ts';
import { loadConfig } from '../shared/config.ts';
import { decodeBase64Field, DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { get as getDocument } from '../documents/documents.contract.ts';
import { openCheck, readCheck, type ApprovalSettings } from './approval-client.ts';
import { appendUnderLock } from './chain-store.ts';
import { sha256Hex, type EvidenceRowData } from './evidence-chain.ts';
import { foldRequest, type FoldedRequest } from './fold.ts';
import { contextKeyOf, mandateSha256, missingDecreeItems, renderAgreement } from './mandate.ts';
import { readMultipart } from './multipart.ts';
import { PortabilityFile } from './portability.entity.ts';
import { assertedInstant, clockOf, readRequest, requestOf, type ReadRequest } from './requests.ts';
import { SIGNED_FILE_MAX_BYTES, type DepositSignedParams, type OpenedSignature, type SignatureView } from './portability.contract.ts';

const approvalSettings = (): ApprovalSettings => ({ url: loadConfig().portability.approvalUrl, timeoutMs: loadConfig().portability.approvalTimeoutMs });

const alreadySigned = (signedAt: string) => new DomainError('SIGNATURE_EXISTS', `The mandate is already signed (at ${signedAt}); a signature is recorded once`);

function signatureView(r: ReadRequest, folded: FoldedRequest, checkStatus: SignatureView['status']): SignatureView {
  const s = folded.signature;
  return {
    requestRef: r.request.requestRef, signed: s !== null, status: checkStatus, checkId: folded.openCheck?.checkId ?? null,
    method: s?.method ?? null, signedAt: s?.signedAt ?? null, signedBy: s?.signedBy ?? null, agreementSha256: s?.agreementSha256 ?? null,
    mandateSha256: mandateSha256(r.filing.mandate),
  };
}

const foldOf = (r: ReadRequest, rows: EvidenceRowData[]) => foldRequest(rows, r.filing.clocks);

export async function openSignature(ctx: Context<{ requestRef: string; userIds: string[]; objectId?: string }>, em: EntityManager): Promise<OpenedSignature> {
  const auth = principalOf(ctx);
  const read = await readRequest(em, await requestOf(em, auth, ctx.params.requestRef));
  if (read.folded.signature) throw alreadySigned(read.folded.signature.signedAt);
  const missing = missingDecreeItems(read.filing.mandate);
  if (missing.length) {
    throw new DomainError('MANDATE_INCOMPLETE', `The mandate lacks what the decree requires: ${missing.join(', ')}`, { details: missing.map((item) => ({ field: item, rule: 'decreeItem', message: 'required by the decree' })) });
  }
  if (ctx.params.objectId !== undefined) await call(ctx, getDocument, { id: ctx.params.objectId });
  const mandateDigest = mandateSha256(read.filing.mandate);
  const agreement = renderAgreement(read.filing.mandate, mandateDigest);
  const agreementSha256 = sha256Hex(agreement);
  const contextKey = contextKeyOf(read.request.requestRef, mandateDigest);
  // The approval service first, outside any transaction: no answer, nothing recorded (502).
  const check = await openCheck(approvalSettings(), { contextKey, userIds: ctx.params.userIds, subject: `Mandate ${read.filing.mandate.reference}`, documentSha256: agreementSha256 });

  const fileId = newId('portabilityFile');
  const objectId = ctx.params.objectId ?? fileId;
  const now = (await clockOf(em, read.request)).now();
  await appendUnderLock(em, read.request.requestRef, now, (rows) => {
    const signature = foldOf(read, rows).signature;
    if (signature) throw alreadySigned(signature.signedAt);
    return {
      kind: 'signature.requested',
      payload: { checkId: check.id, contextKey, mandateSha256: mandateDigest, agreementSha256, userIds: ctx.params.userIds, objectId },
      alongside: ctx.params.objectId !== undefined ? undefined : (tx) => {
        tx.create(PortabilityFile, {
          id: fileId, organizationId: auth.organizationId, livemode: auth.livemode, requestRef: read.request.requestRef, kind: 'agreement',
          filename: `${read.filing.mandate.reference}.txt`, contentType: 'text/plain; charset=utf-8', content: Buffer.from(agreement, 'utf8'), sha256: agreementSha256,
        });
      },
    };
  });
  return { requestRef: read.request.requestRef, checkId: check.id, contextKey, status: 'open', agreement, agreementSha256, mandateSha256: mandateDigest, objectId };
}

export async function readSignature(ctx: Context<{ requestRef: string }>, em: EntityManager): Promise<SignatureView> {
  const read = await readRequest(em, await requestOf(em, principalOf(ctx), ctx.params.requestRef));
  const { folded } = read;
  const open = folded.openCheck;
  if (folded.signature || !open) return signatureView(read, folded, !open ? 'none' : folded.signature?.method === 'approval' ? 'passed' : 'open');
  // Asked outside any transaction; the first read that finds it passed chains the signature.
  const check = await readCheck(approvalSettings(), open.checkId);
  if (check.status !== 'passed') return signatureView(read, folded, check.status);
  if (!check.decidedAt || Number.isNaN(Date.parse(check.decidedAt))) throw new DomainError('UPSTREAM_ERROR', 'The approval service reports the check passed without saying when');
  const now = (await clockOf(em, read.request)).now();
  await appendUnderLock(em, read.request.requestRef, now, (rows) => (foldOf(read, rows).signature ? null : {
    kind: 'signature.recorded',
    payload: { method: 'approval', signedAt: new Date(check.decidedAt!).toISOString(), signedBy: check.decidedBy, agreementSha256: open.agreementSha256, checkId: open.checkId, contextKey: open.contextKey },
  }));
  const after = await readRequest(em, await requestOf(em, principalOf(ctx), ctx.params.requestRef));
  return signatureView(after, after.folded, 'passed');
}

export async function depositSignedMandate(ctx: Context<DepositSignedParams>, em: EntityManager): Promise<SignatureView & { fileId: string }> {
  const auth = principalOf(ctx);
  const request = await requestOf(em, auth, ctx.params.requestRef);
  const body = decodeBase64Field(ctx.params.file.content, 'file');
  const form = await readMultipart(body, ctx.params.file.contentType, SIGNED_FILE_MAX_BYTES);
  if (!form.file) throw new DomainError('INVALID_REQUEST', 'The signed mandate is missing: send it as the `file` part', { details: [{ field: 'file', rule: 'required', message: 'a file part' }] });
  if (form.file.truncated) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The signed file is over ${SIGNED_FILE_MAX_BYTES} bytes (10 MB)`, { details: [{ field: 'file', rule: 'maxBytes', message: `at most ${SIGNED_FILE_MAX_BYTES} bytes` }] });
  }
  const signedBy = form.fields.signedBy?.trim();
  if (!signedBy || signedBy.length > 200) throw new DomainError('MISSING_FIELD', 'Say who signed: the `signedBy` part (at most 200 characters)', { details: [{ field: 'signedBy', rule: 'required', message: 'who signed' }] });
  if (!form.fields.signedAt) throw new DomainError('MISSING_FIELD', 'Say when it was signed: the `signedAt` part (ISO 8601 with offset)', { details: [{ field: 'signedAt', rule: 'required', message: 'when it was signed' }] });
  const now = (await clockOf(em, request)).now();
  const signedAt = assertedInstant(form.fields.signedAt, 'signedAt', now);

  const read = await readRequest(em, request);
  const fileId = newId('portabilityFile');
  const agreementSha256 = sha256Hex(form.file.bytes);
  const file = form.file;
  await appendUnderLock(em, request.requestRef, now, (rows) => {
    const signature = foldOf(read, rows).signature;
    if (signature) throw alreadySigned(signature.signedAt);
    return {
      kind: 'signature.recorded',
      payload: { method: 'paper', signedAt: signedAt.toISOString(), signedBy, agreementSha256, fileId, filename: file.filename },
      alongside: (tx) => {
        tx.create(PortabilityFile, {
          id: fileId, organizationId: auth.organizationId, livemode: auth.livemode, requestRef: request.requestRef, kind: 'signed_mandate',
          filename: file.filename ?? 'signed-mandate', contentType: file.contentType, content: file.bytes, sha256: agreementSha256,
        });
      },
    };
  });
  const after = await readRequest(em, await requestOf(em, auth, request.requestRef));
  return { ...signatureView(after, after.folded, after.folded.openCheck ? 'open' : 'none'), fileId };
}
