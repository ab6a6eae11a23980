/**
 * Per-connector delivery slots: a connector never has more than its limit in flight, a freed slot
 * goes to the longest waiter, a waiter gives up after its wait, and connectors never share slots.
 */
import { ConnectorSlots } from '../../../../services/documents/connector-slots.ts';

describe('ConnectorSlots', () => {
  it('bounds each connector on its own and hands freed slots to waiters in order', async () => {
    const slots = new ConnectorSlots((id) => (id === 'slow' ? 2 : 1));
    expect(await slots.take('slow', 10)).toBe(true);
    expect(await slots.take('slow', 10)).toBe(true);
    expect(await slots.take('slow', 20)).toBe(false); // saturated: gives up after its wait
    expect(await slots.take('fast', 10)).toBe(true); // another connector is not affected
    const order: string[] = [];
    const first = slots.take('slow', 5_000).then((ok) => { order.push(`first ${ok}`); });
    const second = slots.take('slow', 5_000).then((ok) => { order.push(`second ${ok}`); });
    slots.give('slow');
    await first;
    expect(order).toEqual(['first true']);
    expect(slots.inUse('slow')).toBe(2);
    slots.give('slow');
    await second;
    expect(order).toEqual(['first true', 'second true']);
    slots.give('slow');
    slots.give('slow');
    expect(slots.inUse('slow')).toBe(0);
  });
});
