import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  customerEvent,
  customerEventId,
  customerEventIdPattern,
  eventIdSecretProperty,
  identifiedCustomerEvent,
} from '../src/messaging/customer-events';
import { loadConfig } from '../src/service/config';
import { Type } from '@sinclair/typebox';

const secret = 'a-deployment-secret-of-some-length';

describe('customer event ids', () => {
  it('are the same for the same occurrence, so an event announced twice is one event', () => {
    const first = customerEventId(secret, 'batch.settled', 'bat_0123456789abcdef');
    expect(customerEventId(secret, 'batch.settled', 'bat_0123456789abcdef')).toBe(first);
    expect(first).toMatch(customerEventIdPattern);
  });

  it('differ across occurrences, types and secrets', () => {
    const ids = [
      customerEventId(secret, 'topup.expired', 'expired:41'),
      customerEventId(secret, 'topup.expired', 'expired:42'),
      customerEventId(secret, 'topup.credited', 'expired:41'),
      customerEventId(`${secret}-other`, 'topup.expired', 'expired:41'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('cannot be derived from the occurrence without the secret: neither its unkeyed hash nor anything of the key', () => {
    const occurrence = 'seat_abc:2030-04-10T08:00:00.000Z';
    const id = customerEventId(secret, 'seat.past_due', occurrence);
    // What the ids were before they were keyed: anyone who knew the seat and its period end could compute it.
    const unkeyed = crypto.hash('sha256', `seat.past_due\u0000${occurrence}`, 'hex');
    expect(unkeyed.startsWith(id.slice('evt_'.length, 'evt_'.length + 24))).toBe(false);
    for (const part of ['seat_abc', '2030', 'past_due', Buffer.from(occurrence).toString('hex').slice(0, 8)])
      expect(id).not.toContain(part);
    // 128 bits of the MAC: 32 hex characters after the prefix.
    expect(id.length).toBe('evt_'.length + 32);
  });

  it('are given by the publisher, and the occurrence is not published', () => {
    const draft = customerEvent('wallet.low_balance', 'cus_1:2030-04-10', 'cus_1', { balance_eur_cents: 0 }, new Date(1_900_000_000_000));
    const event = identifiedCustomerEvent(secret, draft);
    expect(event).toEqual({
      id: customerEventId(secret, 'wallet.low_balance', 'cus_1:2030-04-10'),
      type: 'wallet.low_balance',
      customer_id: 'cus_1',
      created: 1_900_000_000,
      data: { balance_eur_cents: 0 },
    });
    expect(JSON.stringify(event)).not.toContain('2030-04-10');
  });

  it('take their secret from EVENT_ID_SECRET, which refuses a short one', () => {
    const schema = Type.Object({ EVENT_ID_SECRET: eventIdSecretProperty });
    expect(loadConfig(schema, { EVENT_ID_SECRET: secret }).EVENT_ID_SECRET).toBe(secret);
    expect(() => loadConfig(schema, { EVENT_ID_SECRET: 'short' })).toThrow(/EVENT_ID_SECRET/);
  });
});
