import { describe, expect, it } from 'vitest';
import { DeliverySlots } from '../src/app/delivery-slots';

describe('delivery slots', () => {
  it('serves waiting customers in turn, not in the order they asked', async () => {
    const slots = new DeliverySlots(2, 16);
    await slots.take('A');
    await slots.take('A');
    const granted: string[] = [];
    const waiters = [
      ['A', 'a1'],
      ['A', 'a2'],
      ['A', 'a3'],
      ['B', 'b1'],
      ['C', 'c1'],
    ].map(([customer, name]) => slots.take(customer!).then(() => granted.push(name!)));
    for (let freed = 0; freed < 5; freed++) {
      slots.give('A');
      await Promise.resolve();
      await Promise.resolve();
    }
    await Promise.all(waiters);
    // A asked first and for most, yet B and C each get a slot before A's second.
    expect(granted).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    expect(slots.inFlight()).toBe(2);
  });

  it("bounds one customer's deliveries in flight while others still get slots", async () => {
    const slots = new DeliverySlots(10, 2);
    await slots.take('A');
    await slots.take('A');
    let third = false;
    const waiting = slots.take('A').then(() => {
      third = true;
    });
    await slots.take('B');
    await Promise.resolve();
    expect(third).toBe(false);
    expect(slots.inFlight('A')).toBe(2);
    expect(slots.inFlight('B')).toBe(1);
    slots.give('A');
    await waiting;
    expect(third).toBe(true);
    expect(slots.inFlight('A')).toBe(2);
    expect(slots.inFlight()).toBe(3);
  });
});
