/**
 * punchout: the buyer's side of cXML PunchOut. Opening a session posts a PunchOutSetupRequest to
 * the supplier's catalog (the buyer's credentials, a secret buyer cookie, our cart-return URL) and
 * keeps the session (the cookie only as its SHA-256); the cart the catalog posts back is checked
 * against the session (cookie, expiry, one cart) and becomes a purchase order through the orders
 * service, sent as the caller that opened the session. cXML is read by mappings/cxml (hardened,
 * bounded); the catalog's answer is read with a timeout and a size cap.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { DomainError, decodeBase64Field, rethrowAsDomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { privateTargetProblem, urlShapeProblem } from '../shared/url-policy.ts';
import { create as createPurchaseOrder } from '../orders/orders.contract.ts';
import { buildPunchOutSetupRequest, readPunchOutSetupResponse, readPunchOutOrderMessage, cartPostXml, cartToPurchaseOrderDocument, MAX_CXML_BYTES } from '../../mappings/index.ts';
import { PunchOutSession } from './punchout-session.entity.ts';
import * as contract from './punchout.contract.ts';

/** How long a session takes its cart. */
const SESSION_SECONDS = Number(process.env.EINV_PUNCHOUT_SESSION_SECONDS ?? 3600);
/** Time allowed for the catalog's answer to a setup request. */
const CATALOG_TIMEOUT_MS = Number(process.env.EINV_PUNCHOUT_CATALOG_TIMEOUT_MS ?? 15_000);

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

function upstream(message: string, details: Array<{ field: string; rule: string; message: string }> = []): DomainError {
  return new DomainError('UPSTREAM_ERROR', message, { details });
}

/** POSTs the setup request; the answer's text, read within the cXML size cap. */
async function postToCatalog(url: string, xml: string): Promise<{ status: number; text: string }> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', accept: 'text/xml, application/xml' }, body: xml, redirect: 'error', signal: AbortSignal.timeout(CATALOG_TIMEOUT_MS) });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw upstream(`The catalog at ${url} ${timedOut ? `did not answer within ${CATALOG_TIMEOUT_MS} ms` : `could not be reached: ${(err as Error).message}`}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > MAX_CXML_BYTES) {
      throw upstream(`The catalog's answer is larger than ${MAX_CXML_BYTES} bytes`);
    }
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return { status: res.status, text: Buffer.concat(chunks).toString('utf8') };
}

function sessionView(s: PunchOutSession, publicUrl: string): contract.SessionView {
  return {
    id: s.id, status: s.status, startPageUrl: s.startPageUrl, cartReturnUrl: cartReturnUrl(publicUrl, s.id), supplier: s.supplier,
    orderNumber: s.orderNumber, expiresAt: s.expiresAt.toISOString(), createdAt: s.createdAt.toISOString(),
  };
}

const cartReturnUrl = (publicUrl: string, id: string): string => `${publicUrl.replace(/\/+$/, '')}/v1/punchout/sessions/${id}/cart`;

const PunchOutService: ServiceSchema = {
  name: 'punchout',
  mixins: [OrmMixin],
  actions: {
    openSession: implement(contract.openSession, async (ctx) => {
      const auth = principalOf(ctx);
      const p = ctx.params;
      const shape = urlShapeProblem(p.catalogUrl, auth.livemode);
      if (shape) throw new DomainError('INVALID_REQUEST', `catalogUrl ${shape.replace('for live webhooks', 'for live sessions')}`, { details: [{ field: 'catalogUrl', rule: 'url', message: shape }] });
      if (auth.livemode) {
        const target = await privateTargetProblem(p.catalogUrl);
        if (target) throw new DomainError('INVALID_REQUEST', `catalogUrl ${target.replace('live webhooks', 'live sessions')}`, { details: [{ field: 'catalogUrl', rule: 'publicAddress', message: target }] });
      }
      const config = loadConfig();
      const id = newId('punchoutSession');
      const buyerCookie = randomBytes(32).toString('base64url');
      const now = systemClock.now();
      const c = p.credentials ?? {};
      const from = { domain: c.fromDomain ?? 'NetworkID', identity: c.fromIdentity ?? auth.companyId! };
      const xml = buildPunchOutSetupRequest({
        payloadId: `${id}@${new URL(config.publicUrl).hostname}`, timestamp: now.toISOString(),
        from, to: { domain: c.toDomain ?? 'NetworkID', identity: c.toIdentity ?? p.supplier.peppolId },
        sender: { ...from, ...(c.sharedSecret ? { sharedSecret: c.sharedSecret } : {}) }, userAgent: 'einvoicing-exchange',
        deploymentMode: auth.livemode ? 'production' : 'test', operation: p.operation ?? 'create', buyerCookie,
        browserFormPostUrl: cartReturnUrl(config.publicUrl, id), ...(p.user ? { user: p.user } : {}),
      });
      const answer = await postToCatalog(p.catalogUrl, xml);
      let response: ReturnType<typeof readPunchOutSetupResponse>;
      try {
        response = readPunchOutSetupResponse(answer.text);
      } catch (err) {
        throw upstream(`The catalog answered HTTP ${answer.status} without a readable cXML PunchOutSetupResponse: ${(err as Error).message}`);
      }
      if (!/^2\d\d$/.test(response.statusCode) || !response.startPageUrl) {
        const message = `The catalog refused the PunchOut setup: cXML status ${response.statusCode || '(none)'} ${response.statusText}`.trim();
        throw upstream(response.startPageUrl ? message : `${message}${/^2/.test(response.statusCode) ? ' (no StartPage URL)' : ''}`, [{ field: 'catalogUrl', rule: 'cxmlStatus', message: `${response.statusCode} ${response.statusText}`.trim() }]);
      }
      const em = emOf(ctx).fork();
      const session = em.create(PunchOutSession, {
        id, organizationId: auth.organizationId, companyId: auth.companyId!, livemode: auth.livemode, principal: auth,
        buyerCookieSha256: sha256(buyerCookie).toString('hex'), catalogUrl: p.catalogUrl, startPageUrl: response.startPageUrl,
        supplier: p.supplier, orderNumber: p.orderNumber ?? `PO-${id.slice(4)}`, status: 'open', documentId: null,
        expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
      });
      await em.flush();
      return sessionView(session, config.publicUrl);
    }),

    returnCart: implement(contract.returnCart, async (ctx) => {
      const p = ctx.params;
      // A JSON body reaches here without `file`: it is no cart either.
      if (!p.file?.content) throw new DomainError('MISSING_FIELD', 'No cart in this post: send the PunchOutOrderMessage as the form field cxml-urlencoded or cxml-base64 (application/x-www-form-urlencoded), or as the XML body (text/xml)', { details: [{ field: 'body', rule: 'required', message: 'no cXML PunchOutOrderMessage' }] });
      const body = decodeBase64Field(p.file.content, 'body');
      let cart: ReturnType<typeof readPunchOutOrderMessage>;
      try {
        cart = readPunchOutOrderMessage(cartPostXml(body, p.file.contentType));
      } catch (err) {
        const e = err as { details?: Array<{ rule: string }> };
        if (e.details?.[0]?.rule === 'contentType') throw new DomainError('UNSUPPORTED_MEDIA_TYPE', (err as Error).message, { details: e.details as never });
        return rethrowAsDomainError(err);
      }
      const em = emOf(ctx).fork();
      const session = await em.findOne(PunchOutSession, { id: p.id });
      const now = systemClock.now();
      if (!session || session.expiresAt <= now) throw new DomainError('RESOURCE_NOT_FOUND', `PunchOut session ${p.id} does not exist or has expired; open a new one`);
      if (!timingSafeEqual(sha256(cart.buyerCookie), Buffer.from(session.buyerCookieSha256, 'hex'))) {
        throw new DomainError('INVALID_TOKEN', 'The BuyerCookie of this cart is not the one of the session', { details: [{ field: 'BuyerCookie', rule: 'session', message: 'not this session\'s buyer cookie' }] });
      }
      // One cart per session, whoever posts first: claimed before the order is made.
      const claimed = await em.nativeUpdate(PunchOutSession, { id: session.id, status: 'open' }, { status: 'ordered', updatedAt: now });
      if (claimed === 0) throw new DomainError('INVALID_TRANSITION', `PunchOut session ${p.id} already took its cart${session.documentId ? ` (purchase order ${session.documentId})` : ''}`);
      try {
        const document = (() => {
          try {
            return cartToPurchaseOrderDocument(cart, { number: session.orderNumber, seller: session.supplier });
          } catch (err) {
            return rethrowAsDomainError(err);
          }
        })();
        // Sent as the caller that opened the session (its organization, company and mode).
        const purchaseOrder = await call(ctx, createPurchaseOrder, { to: session.supplier.peppolId, document, metadata: { punchoutSessionId: session.id } }, { meta: { auth: session.principal } });
        await em.nativeUpdate(PunchOutSession, { id: session.id }, { documentId: purchaseOrder.id });
        return { sessionId: session.id, status: 'ordered' as const, purchaseOrder };
      } catch (err) {
        // The cart did not become an order (a bad cart, an unreachable supplier): the session takes a corrected one.
        await em.nativeUpdate(PunchOutSession, { id: session.id }, { status: 'open' });
        throw err;
      }
    }),
  },
};

export default PunchOutService;
