import { describe, expect, it } from 'vitest';
import { retcode } from '@mtx/shared/trading';
import type { BrokerRecord } from '../src/adapter';
import { entryOf } from '../src/results';
import { legStatusOf, ticketClosedBy } from '../src/selection';

function closeRecord(code: number): BrokerRecord {
  return {
    clientId: 'bat_x:0:1',
    state: 'done',
    action: 'close',
    symbol: 'EURUSD',
    ticket: 42,
    type: 0,
    volume: 0.3,
    kind: 'position',
    outcome: { retcode: code, order: 42, deal: 7, price: 1.1, bid: 1.1, ask: 1.1002, volume: 0.3, message: 'from the trade server' },
  };
}

describe('one meaning of "closed" for a close outcome', () => {
  const codes = Object.values(retcode);

  it('counts a close done in full or in part as closed, and nothing else', () => {
    expect(codes.filter(ticketClosedBy).sort()).toEqual([retcode.DONE, retcode.DONE_PARTIAL].sort());
  });

  it('reports a reconciled or replayed close record exactly as the live answer would', () => {
    for (const code of codes) {
      const ticket = entryOf(closeRecord(code)).ticket;
      expect(ticket?.status, `retcode ${code}`).toBe(ticketClosedBy(code) ? 'closed' : 'failed');
      expect(ticket?.message, `retcode ${code}`).toBe(ticketClosedBy(code) ? '' : 'from the trade server');
    }
  });

  it('agrees with the leg status of the same retcode: what fills an order closes a ticket', () => {
    for (const code of codes) expect(ticketClosedBy(code), `retcode ${code}`).toBe(legStatusOf(code) === 'filled');
  });
});
