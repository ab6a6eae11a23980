/**
 * The French lifecycle state machine, table-driven: every row of the spec's table, every direct
 * transition of the graph, jumps over optional statuses, terminal states, who emits what, and how
 * a lifecycle POST picks its code.
 */
import {
  FRENCH_STATUSES, reachableFrom, canMove, allowedTransitions, resolveTransition, apiStatusOf, partyMayEmit,
} from '../../../../services/documents/lifecycle.ts';

const CODES = ['200', '201', '202', '203', '204', '205', '206', '207', '208', '209', '210', '211', '212', '213'];

describe('the spec table', () => {
  it.each([
    // code, tier, emitter, terminal, reason required, next
    ['200', 'mandatory', 'seller_platform', false, false, ['201', '213']],
    ['201', 'free', 'seller_platform', false, false, ['202', '213']],
    ['202', 'free', 'buyer_platform', false, false, ['203', '213']],
    ['203', 'recommended', 'buyer_platform', false, false, ['204']],
    ['204', 'recommended', 'buyer', false, false, ['205', '206', '207', '208', '210']],
    ['205', 'recommended', 'buyer', false, false, ['211']],
    ['206', 'recommended', 'buyer', false, true, ['211']],
    ['207', 'free', 'buyer', false, true, ['205', '206', '210']],
    ['208', 'free', 'buyer', false, true, ['209']],
    ['209', 'free', 'supplier', false, false, ['204']],
    ['210', 'mandatory', 'buyer', 'failure', true, []],
    ['211', 'recommended', 'buyer', false, false, ['212']],
    ['212', 'mandatory', 'supplier', 'success', false, []],
    ['213', 'mandatory', 'platform', 'failure', true, []],
  ])('%s: tier %s, emitted by %s, terminal %s, reason %s, next %j', (code, tier, emitter, terminal, reason, next) => {
    expect(FRENCH_STATUSES[code]).toMatchObject({ code, tier, emittedBy: emitter, terminal, reasonRequired: reason, next });
  });

  it('transmits 200, 210, 212 and 213 to the tax administration, and carries the amount blocks', () => {
    expect(CODES.filter((c) => FRENCH_STATUSES[c]!.reportedToTaxAuthority)).toEqual(['200', '210', '212', '213']);
    expect(FRENCH_STATUSES['206']!.amountBlocks).toEqual(['MAP', 'MAPTTC', 'MNA', 'MNATTC']);
    expect(FRENCH_STATUSES['209']!.amountBlocks).toEqual(['MAJ']);
    expect(FRENCH_STATUSES['211']!.amountBlocks).toEqual(['MPA', 'RAP']);
    expect(FRENCH_STATUSES['212']!.amountBlocks).toEqual(['MEN']);
  });
});

describe('transitions', () => {
  // Every direct edge of the graph is legal.
  const edges = CODES.flatMap((from) => FRENCH_STATUSES[from]!.next.map((to) => [from, to] as const));
  it.each(edges)('%s → %s is a legal direct move', (from, to) => {
    expect(canMove(from, false, to)).toBe(true);
  });

  it.each([
    ['200', '212', 'the shortest successful life: 200, 212'],
    ['200', '210', 'refused straight away: 200, 210'],
    ['200', '213', 'technical rejection: 200, 213'],
    ['200', '204', 'jump over 201–203 (free and recommended, no reason)'],
    ['203', '211', 'jump over 204 and 205'],
    ['204', '211', 'jump over 205'],
    ['204', '212', 'jump over 205 and 211'],
    ['207', '211', 'dispute resolved by approval, 205 skipped'],
    ['209', '205', 'completed, acknowledged again (204 skipped)'],
  ])('%s → %s is a legal jump (%s)', (from, to) => {
    expect(canMove(from, false, to)).toBe(true);
  });

  it.each([
    ['204', '209', '209 only lifts a suspension (208 is never implied)'],
    ['206', '205', 'no way back from a partial approval'],
    ['205', '204', 'chronology: no way back'],
    ['211', '205', 'chronology: no way back'],
    ['203', '201', 'chronology: no way back'],
    ['204', '213', 'technical rejection happens before the buyer acknowledges'],
    ['208', '205', 'a suspension must be completed (209) first'],
    ['204', '204', 'no move to the same status'],
  ])('%s → %s is illegal (%s)', (from, to) => {
    expect(canMove(from, false, to)).toBe(false);
  });

  it.each(['210', '212', '213'])('%s is terminal: nothing follows', (code) => {
    expect(reachableFrom(code)).toEqual([]);
  });

  it('a partial collection (212 with an amount left) may be followed by further collections only', () => {
    expect(reachableFrom('212', true)).toEqual(['212']);
    expect(canMove('212', true, '212', 'supplier')).toBe(true);
    expect(canMove('212', true, '210', 'buyer')).toBe(false);
  });

  it('nothing comes before 200', () => {
    expect(reachableFrom(null)).toEqual(['200']);
  });
});

describe('who may emit', () => {
  it.each([
    ['204', 'buyer', true], ['204', 'supplier', false], ['205', 'buyer', true], ['207', 'buyer', true], ['208', 'buyer', true],
    ['209', 'supplier', true], ['209', 'buyer', false], ['210', 'buyer', true], ['210', 'supplier', false],
    ['211', 'buyer', true], ['211', 'supplier', false], ['212', 'supplier', true], ['212', 'buyer', false],
    ['200', 'supplier', false], ['213', 'buyer', false],
  ] as const)('%s by the %s: %s', (code, party, ok) => {
    expect(partyMayEmit(code, party)).toBe(ok);
  });

  it('lists what each party may do next', () => {
    expect(allowedTransitions('203', false, 'buyer').map((t) => t.code)).toEqual(['204', '205', '206', '207', '208', '210', '211']);
    expect(allowedTransitions('203', false, 'supplier').map((t) => t.code)).toEqual(['212']);
    expect(allowedTransitions('208', false, 'supplier')).toEqual([{ code: '209', label: 'Completed', status: 'under_review' }]);
    expect(allowedTransitions('208', false, 'buyer')).toEqual([]);
    expect(allowedTransitions('210', false, 'buyer')).toEqual([]);
  });
});

describe('the lifecycle POST picks a code', () => {
  const ok = (code: string, partial = false) => expect.objectContaining({ ok: true, code, partial });
  it.each([
    [{ status: 'under_review' }, 'buyer', ok('204')],
    [{ status: 'approved' }, 'buyer', ok('205')],
    [{ status: 'approved', remainingAmount: 40, note: 'one line refused' }, 'buyer', ok('206')],
    [{ status: 'disputed', reason: 'wrong quantity' }, 'buyer', ok('207')],
    [{ status: 'disputed', reasonCode: 'suspended', reason: 'missing PO' }, 'buyer', ok('208')],
    [{ status: 'rejected', reasonCode: 'REF_ERR', reason: 'not ours' }, 'buyer', ok('210')],
    [{ status: 'paid', paymentDate: '2026-04-01', paymentReference: 'TX1' }, 'buyer', ok('211')],
    [{ status: 'paid', paymentDate: '2026-04-02', paymentAmount: 242, paymentCurrency: 'EUR' }, 'supplier', ok('212')],
    [{ status: 'partially_paid', paymentDate: '2026-04-02', paymentAmount: 100, paymentCurrency: 'EUR', remainingAmount: 142 }, 'supplier', ok('212', true)],
    [{ status: 'partially_paid', paymentDate: '2026-04-03', paymentAmount: 142, paymentCurrency: 'EUR', remainingAmount: 0 }, 'supplier', ok('212', false)],
  ] as const)('%j by the %s', (req, party, expected) => {
    expect(resolveTransition(req, party, 242)).toEqual(expected);
  });

  it('computes the amount blocks (206: MAP, MAPTTC, MNA, MNATTC; 211: MPA, RAP; 212: MEN)', () => {
    // 242.00 with VAT = 200.00 net + 21 % VAT; 60.50 with VAT not approved = 50.00 net.
    expect(resolveTransition({ status: 'approved', remainingAmount: 60.5, note: 'x' }, 'buyer', 242, 200)).toEqual({ ok: true, code: '206', partial: false, amounts: { MNATTC: '60.50', MAPTTC: '181.50', MNA: '50.00', MAP: '150.00' } });
    // Without a known net total only the amounts with VAT can be stated; without any total, only what is not approved.
    expect(resolveTransition({ status: 'approved', remainingAmount: 42, note: 'x' }, 'buyer', 242)).toMatchObject({ amounts: { MNATTC: '42.00', MAPTTC: '200.00' } });
    expect(resolveTransition({ status: 'approved', remainingAmount: 42, note: 'x' }, 'buyer', null)).toMatchObject({ amounts: { MNATTC: '42.00' } });
    expect(resolveTransition({ status: 'paid', paymentDate: '2026-01-01', paymentReference: 'r', paymentAmount: 100, remainingAmount: 142 }, 'buyer', 242)).toMatchObject({ amounts: { MPA: '100.00', RAP: '142.00' } });
    expect(resolveTransition({ status: 'paid', paymentDate: '2026-01-01', paymentAmount: 242, paymentCurrency: 'EUR' }, 'supplier', 242)).toMatchObject({ amounts: { MEN: '242.00' } });
  });

  it.each([
    [{ status: 'approved', remainingAmount: 40 }, 'buyer', 'note'],
    [{ status: 'disputed' }, 'buyer', 'reason'],
    [{ status: 'disputed', reasonCode: 'suspended' }, 'buyer', 'reason'],
    [{ status: 'rejected', reason: 'no' }, 'buyer', 'reasonCode'],
    [{ status: 'rejected', reasonCode: 'X' }, 'buyer', 'reason'],
    [{ status: 'paid', paymentReference: 'r' }, 'buyer', 'paymentDate'],
    [{ status: 'paid', paymentDate: '2026-01-01' }, 'buyer', 'paymentReference'],
    [{ status: 'paid', paymentDate: '2026-01-01', paymentCurrency: 'EUR' }, 'supplier', 'paymentAmount'],
    [{ status: 'paid', paymentDate: '2026-01-01', paymentAmount: 1 }, 'supplier', 'paymentCurrency'],
    [{ status: 'partially_paid', paymentDate: '2026-01-01', paymentAmount: 1, paymentCurrency: 'EUR' }, 'supplier', 'remainingAmount'],
  ] as const)('%j by the %s needs %s', (req, party, field) => {
    expect(resolveTransition(req, party, 242)).toMatchObject({ ok: false, field, rule: 'required' });
  });

  it('refuses a partial collection by the buyer and an unknown status', () => {
    expect(resolveTransition({ status: 'partially_paid', remainingAmount: 1 }, 'buyer', 10)).toMatchObject({ ok: false, rule: 'party' });
    expect(resolveTransition({ status: 'draft' }, 'buyer', 10)).toMatchObject({ ok: false, rule: 'enum' });
  });

  it('shows API statuses per code and side', () => {
    expect(apiStatusOf('200', false, 'outgoing')).toBe('sent');
    expect(apiStatusOf('203', false, 'incoming')).toBe('received');
    expect(apiStatusOf('204', false, 'incoming')).toBe('under_review');
    expect(apiStatusOf('206', false, 'incoming')).toBe('approved');
    expect(apiStatusOf('208', false, 'incoming')).toBe('disputed');
    expect(apiStatusOf('210', false, 'incoming')).toBe('rejected');
    expect(apiStatusOf('212', true, 'outgoing')).toBe('partially_paid');
    expect(apiStatusOf('212', false, 'outgoing')).toBe('paid');
  });
});
