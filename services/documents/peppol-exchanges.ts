/**
 * The month's Peppol AS4 exchanges as Peppol Reporting counts them (reporting's TSR and EUSR), read
 * from the evidence each exchange left on its document, across every organization of one mode.
 *
 * Countries: C1's is the SBDH COUNTRY_C1 the evidence keeps (received exchanges); for our own
 * sends it is the sending company's country (tenancy), since the outbound evidence does not keep
 * it. C4's is the receiving company's country for received exchanges (tenancy); for sends it stays
 * unknown, as the sending access point does not know it (the TSR counts sends without it).
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { call } from '../shared/call.ts';
import { companiesByIds } from '../tenancy/tenancy.contract.ts';
import { PEPPOL_AS4_V2, type ReportingExchange } from '../../mappings/peppol/reporting.ts';
import type { ExchangeEvidence } from '../../adapters/sdk/index.ts';

const PEPPOL_CONNECTOR = 'peppol-as4';
/** companiesByIds takes at most this many ids per call. */
const COMPANY_BATCH = 1000;

interface Row {
  direction: 'outgoing' | 'incoming';
  company_id: string;
  sender_peppol_id: string | null;
  receiver_peppol_id: string | null;
  evidence: ExchangeEvidence | string;
}

function monthBounds(month: string): { from: string; to: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return { from: new Date(Date.UTC(y, m - 1, 1)).toISOString(), to: new Date(Date.UTC(y, m, 1)).toISOString() };
}

export async function peppolExchanges(ctx: Context<{ month: string; livemode: boolean }>): Promise<ReportingExchange[]> {
  const { from, to } = monthBounds(ctx.params.month);
  // A read only: no transaction, and none held across the tenancy call below.
  const rows = await emOf(ctx).execute<Row[]>(
    `select direction, company_id, sender_peppol_id, receiver_peppol_id, evidence from documents
      where connector_id = ? and livemode = ? and evidence is not null
        and (evidence->>'exchangedAt')::timestamptz >= ?::timestamptz and (evidence->>'exchangedAt')::timestamptz < ?::timestamptz
      order by id`,
    [PEPPOL_CONNECTOR, ctx.params.livemode, from, to],
  );
  const ids = [...new Set(rows.map((r) => r.company_id))];
  const countries = new Map<string, string>();
  for (let i = 0; i < ids.length; i += COMPANY_BATCH) {
    for (const c of await call(ctx, companiesByIds, { ids: ids.slice(i, i + COMPANY_BATCH) })) countries.set(c.id, c.country);
  }
  return rows.map((r) => {
    const e = (typeof r.evidence === 'string' ? JSON.parse(r.evidence) : r.evidence) as ExchangeEvidence;
    const d = e.details ?? {};
    const sent = r.direction === 'outgoing';
    const own = countries.get(r.company_id);
    const countryC1 = d.countryC1 || (sent ? own : undefined);
    const countryC4 = sent ? undefined : own;
    return {
      direction: sent ? 'sent' : 'received',
      exchangedAt: e.exchangedAt,
      documentTypeId: d.documentTypeId ?? '',
      processId: d.processId ?? '',
      ...(countryC1 ? { countryC1 } : {}),
      ...(countryC4 ? { countryC4 } : {}),
      senderParticipant: r.sender_peppol_id ?? '',
      receiverParticipant: r.receiver_peppol_id ?? '',
      otherAccessPoint: e.counterpartAccessPoint ?? '',
      transportProtocol: PEPPOL_AS4_V2,
      receipt: typeof e.receipt === 'string' && e.receipt.length > 0,
    };
  });
}
