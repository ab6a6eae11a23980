/**
 * orders: purchase orders over the documents service. Create renders the caller's JSON as a
 * Peppol BIS Order 3.0 (a pure mapping, mappings/ubl-order) and sends it with documents.send as
 * `format=ubl-xml` — one pipeline for routing, validation, storage, delivery and the inbox; reads
 * go through documents too. No tables of its own.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { DomainError, rethrowAsDomainError } from '../shared/errors.ts';
import { send, get as getDocument, list as listDocuments, jsonRepresentation, type DocumentView } from '../documents/documents.contract.ts';
import { companyOf } from '../tenancy/tenancy.contract.ts';
import { purchaseOrderFromJson, purchaseOrderToUbl, type PurchaseOrder } from '../../mappings/index.ts';
import * as contract from './orders.contract.ts';

const PEPPOL_ID = /^\d{4}:\S+$/;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Is this stored JSON a purchase order of ours (created here, or read from a UBL Order)? */
function isPurchaseOrder(v: unknown): v is PurchaseOrder {
  return isObj(v) && typeof v.number === 'string' && Array.isArray(v.lines) && isObj(v.totals) && isObj(v.buyer) && isObj(v.seller);
}

/**
 * The caller's document with the parties the request implies: the buyer is the acting company
 * (what the caller states wins), the seller's Peppol id is `to` when `to` is one.
 */
export function withImpliedParties(document: Obj, to: string | undefined, company: { name: string; peppolId: string | null; vatNumber: string | null; registrationNumber: string | null; country: string }): Obj {
  const buyer = isObj(document.buyer) ? document.buyer : {};
  const seller = isObj(document.seller) ? document.seller : document.seller === undefined ? {} : document.seller;
  const impliedBuyer: Obj = {
    name: company.name,
    ...(company.peppolId ? { peppolId: company.peppolId } : {}),
    ...(company.vatNumber ? { vatNumber: company.vatNumber } : {}),
    ...(company.registrationNumber ? { companyId: company.registrationNumber } : {}),
    address: { country: company.country },
  };
  return {
    ...document,
    buyer: { ...impliedBuyer, ...buyer },
    seller: isObj(seller) && seller.peppolId === undefined && to && PEPPOL_ID.test(to) ? { ...seller, peppolId: to } : seller,
  };
}

async function viewOf(ctx: Context, doc: DocumentView): Promise<contract.PurchaseOrderView> {
  const stored = await call(ctx, jsonRepresentation, { id: doc.id });
  return { ...doc, order: isPurchaseOrder(stored) ? stored : null };
}

const OrdersService: ServiceSchema = {
  name: 'orders',
  actions: {
    create: implement(contract.create, async (ctx) => {
      const auth = principalOf(ctx);
      const company = await call(ctx, companyOf, { organizationId: auth.organizationId, companyId: auth.companyId! });
      if (!company) throw new DomainError('COMPANY_FORBIDDEN', `Company '${auth.companyId}' is not one this credential may act for`);
      const document = withImpliedParties(ctx.params.document, ctx.params.to, company);
      const buyerId = isObj(document.buyer) ? document.buyer.peppolId : undefined;
      if (typeof buyerId === 'string' && company.peppolId && buyerId.toLowerCase() !== company.peppolId.toLowerCase()) {
        const message = `The buyer of this order (${buyerId}) is not the sending company (${company.peppolId}); send it from the company it names`;
        throw new DomainError('ISSUER_MISMATCH', message, { details: [{ field: 'document.buyer.peppolId', rule: 'issuer', message }] });
      }
      const sellerId = isObj(document.seller) && typeof document.seller.peppolId === 'string' ? document.seller.peppolId : undefined;
      const to = ctx.params.to ?? sellerId;
      if (!to) throw new DomainError('MISSING_FIELD', 'to (the supplier) is required, or document.seller.peppolId', { details: [{ field: 'to', rule: 'required', message: 'name the supplier in `to` or in document.seller.peppolId' }] });
      if (sellerId && PEPPOL_ID.test(to) && sellerId.toLowerCase() !== to.toLowerCase()) {
        const message = `document.seller.peppolId (${sellerId}) is not the recipient \`to\` (${to}): the order goes to the supplier it names`;
        throw new DomainError('INVALID_REQUEST', message, { details: [{ field: 'document.seller.peppolId', rule: 'recipient', message }] });
      }
      let order: PurchaseOrder;
      let xml: string;
      try {
        order = purchaseOrderFromJson(document, { today: systemClock.now().toISOString().slice(0, 10) });
        xml = purchaseOrderToUbl(order);
      } catch (err) {
        return rethrowAsDomainError(err);
      }
      const doc = await call(ctx, send, { type: 'purchase-order', format: 'ubl-xml', xml, to, ...(ctx.params.metadata ? { metadata: ctx.params.metadata } : {}) });
      return { ...doc, order };
    }),

    get: implement(contract.get, async (ctx) => {
      const doc = await call(ctx, getDocument, { id: ctx.params.id });
      if (doc.type !== 'purchase-order') throw new DomainError('DOCUMENT_NOT_FOUND', `Document ${ctx.params.id} is a ${doc.type}, not a purchase order`);
      return viewOf(ctx, doc);
    }),

    list: implement(contract.list, async (ctx) => call(ctx, listDocuments, { ...ctx.params, type: 'purchase-order' })),
  },
};

export default OrdersService;
