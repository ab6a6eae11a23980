/**
 * The JSON send of a small Belgian-seller invoice between two sandbox organizations, as the
 * throughput benches, the chaos suite and the idempotency tests send it: the seller is the sending
 * company (its VAT number), the buyer a French client, up to three lines at 21 %.
 */

const LINES = [
  { description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 },
  { description: 'Travel', quantity: 1, unit: 'C62', unitPrice: 80, vatRate: 21 },
  { description: 'Licence', quantity: 3, unit: 'C62', unitPrice: 15.5, vatRate: 21 },
] as const;

export interface SandboxSend {
  number: string;
  sellerVat: string;
  buyerVat: string;
  /** The recipient company's id; none for a validate-only body. */
  to?: string;
  /** How many of the three sample lines (default all three). */
  lines?: 1 | 2 | 3;
}

export function sandboxSendBody(send: SandboxSend): Record<string, unknown> {
  const document = {
    number: send.number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
    seller: { name: 'Acme SPRL', vatNumber: send.sellerVat, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
    buyer: { name: 'Client SA', vatNumber: send.buyerVat, address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
    lines: LINES.slice(0, send.lines ?? 3).map((line) => ({ ...line })),
  };
  return { type: 'invoice', format: 'json', ...(send.to ? { to: send.to } : {}), document };
}
