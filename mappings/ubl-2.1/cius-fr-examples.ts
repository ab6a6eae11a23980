/**
 * Starting points of the French UBL generator (`GET /v1/fr/ubl/templates`): request bodies for the
 * common cases of the reform, each of which generates a UBL invoice that passes EN 16931 and the
 * BR-FR rules we ship (test/unit/mappings/ubl-2.1/cius-fr.spec.ts proves it for every one). The
 * parties are two real-shaped French companies (valid SIRENs, SIRETs and VAT keys).
 */
import type { FrenchFacts } from './cius-fr.ts';

/** A body of `POST /v1/fr/ubl/generate`: the send envelope's JSON fields plus the French facts. */
export interface FrenchUblRequest {
  type?: 'invoice' | 'credit-note';
  selfBilled?: boolean;
  document: Record<string, unknown>;
  french?: Omit<FrenchFacts, 'sellerSiret' | 'buyerSiret' | 'selfBilled'>;
}

export interface FrenchUblExample {
  id: string;
  name: string;
  description: string;
  body: FrenchUblRequest;
}

const SELLER = {
  name: 'Vendeur SAS', vatNumber: 'FR40303265045', siren: '303265045', siret: '30326504500011',
  address: { street: '12 rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
  contact: { email: 'facturation@vendeur.example' },
};
const BUYER = {
  name: 'Acheteur SA', vatNumber: 'FR44732829320', siren: '732829320',
  address: { street: '2 place Bellecour', city: 'Lyon', postalCode: '69002', country: 'FR' },
};
const PAYMENT = { means: 'credit_transfer', iban: 'FR7630006000011234567890189', reference: 'F2026-0042' };

export const FRENCH_UBL_EXAMPLES: readonly FrenchUblExample[] = Object.freeze([
  {
    id: 'b2b-domestic-services',
    name: 'Domestic B2B invoice, services',
    description: 'A French supplier invoices a French company for services at 20 %: billing framework S1, #BAR#B2B, both parties addressed 0225:<SIREN>, the three payment mentions with their statutory wording.',
    body: {
      type: 'invoice',
      document: {
        number: 'F2026-0042', issueDate: '2026-09-15', dueDate: '2026-10-15', buyerReference: 'ACH-2026-77',
        seller: SELLER, buyer: BUYER, payment: PAYMENT,
        lines: [{ description: 'Conseil en organisation', quantity: 3, unit: 'DAY', unitPrice: 800, vatRate: 20 }],
      },
      french: { operationCategory: 'services', processingRule: 'B2B' },
    },
  },
  {
    id: 'b2b-goods-multiple-vat-rates',
    name: 'Domestic B2B invoice, goods at several VAT rates',
    description: 'Goods at 20 %, 10 % and 5.5 % (one VAT breakdown per rate): billing framework B1, the buyer addressed on a directory suffix (0225:<SIREN>_<suffix>).',
    body: {
      type: 'invoice',
      document: {
        number: 'F2026-0043', issueDate: '2026-09-16', dueDate: '2026-10-16', orderReference: 'PO-5521',
        seller: SELLER, buyer: { ...BUYER, peppolId: '0225:732829320_ACHATS' }, payment: PAYMENT,
        lines: [
          { description: 'Chaise de bureau', quantity: 4, unitPrice: 150, vatRate: 20 },
          { description: 'Repas traiteur', quantity: 10, unitPrice: 18.5, vatRate: 10 },
          { description: 'Livres techniques', quantity: 5, unitPrice: 32, vatRate: 5.5 },
        ],
      },
      french: { operationCategory: 'goods' },
    },
  },
  {
    id: 'credit-note',
    name: 'Credit note',
    description: 'A credit note (381) for part of invoice F2026-0042: it names the credited invoice and its date (BT-25/BT-26, BR-FR-CO-05).',
    body: {
      type: 'credit-note',
      document: {
        number: 'AV2026-0007', issueDate: '2026-09-20', billingReference: 'F2026-0042', billingReferenceDate: '2026-09-15',
        seller: SELLER, buyer: BUYER,
        lines: [{ description: 'Remise sur conseil en organisation', quantity: 1, unitPrice: 400, vatRate: 20 }],
      },
      french: { operationCategory: 'services' },
    },
  },
  {
    id: 'self-billing',
    name: 'Self-billed invoice (autofacturation)',
    description: 'The buyer issues the invoice on its supplier\'s behalf (type 389): `document.seller` is the issuing buyer, `document.buyer` the supplier; the supplier\'s address is 0225:<its SIREN> (BR-FR-22).',
    body: {
      type: 'invoice', selfBilled: true,
      document: {
        number: 'AF2026-0101', issueDate: '2026-09-30', dueDate: '2026-10-30',
        seller: BUYER, buyer: SELLER,
        lines: [{ description: 'Collecte de matières premières, septembre', quantity: 1200, unit: 'KGM', unitPrice: 0.85, vatRate: 20 }],
      },
      french: { operationCategory: 'goods' },
    },
  },
  {
    id: 'b2b-mixed-already-paid',
    name: 'Mixed goods and services, already paid',
    description: 'Goods and their installation, paid at order: billing framework M2, the paid amount equals the total and nothing is due (BR-FR-CO-09).',
    body: {
      type: 'invoice',
      document: {
        number: 'F2026-0044', issueDate: '2026-09-18', dueDate: '2026-09-18',
        seller: SELLER, buyer: BUYER, payment: PAYMENT,
        lines: [
          { description: 'Borne de recharge', quantity: 1, unitPrice: 1200, vatRate: 20 },
          { description: 'Installation', quantity: 1, unitPrice: 300, vatRate: 20 },
        ],
        totals: { prepaid: 1800, payable: 0 },
      },
      french: { operationCategory: 'mixed', billingFramework: 'M2' },
    },
  },
]);

export function frenchUblExample(id: string): FrenchUblExample | undefined {
  return FRENCH_UBL_EXAMPLES.find((e) => e.id === id);
}
