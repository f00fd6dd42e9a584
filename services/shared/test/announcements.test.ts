import { describe, expect, it } from 'vitest';
import { announcements, endpointChanged } from '../src/messaging/announcements';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('the announcement registry', () => {
  it('reads the customer (and the revision where given) from a JSON object or a bare id, and nothing from anything else', () => {
    const read = (text: string) => announcements.billingChanged.decode(bytes(text));
    expect(read('{"customer_id":"cus_1","revision":"r9"}')).toEqual({ customerId: 'cus_1', revision: 'r9' });
    expect(read('{"customer_id":"cus_1","sequence":4}')).toEqual({ customerId: 'cus_1' });
    // Replicas of the version before the registry announced top-up changes as the bare id.
    expect(announcements.topupsChanged.decode(bytes('cus_2'))).toEqual({ customerId: 'cus_2' });
    for (const bad of ['{"customer_id":', '{"revision":"r1"}', '', 'x'.repeat(129), '{"customer_id":"a b"}']) expect(read(bad)).toBeNull();
  });

  it('decodes what it encodes, for every announcement', () => {
    const roundTrip = <T>(announcement: { encode(value: T): string; decode(data: Uint8Array): T | null }, value: T) =>
      announcement.decode(bytes(announcement.encode(value)));
    expect(roundTrip(announcements.topupsChanged, { customerId: 'cus_a' })).toEqual({ customerId: 'cus_a' });
    expect(roundTrip(announcements.billingChanged, { customerId: 'cus_a', revision: 'rev_1' })).toEqual({
      customerId: 'cus_a',
      revision: 'rev_1',
    });
    const moved = { customerId: 'cus_a', sequence: 7, balanceEurCents: 1200, heldEurCents: 0 };
    expect(roundTrip(announcements.walletMoved, moved)).toEqual(moved);
    expect(roundTrip(announcements.accountChanged, { accountId: 'acc_1x' })).toEqual({ accountId: 'acc_1x' });
    expect(roundTrip(announcements.keyRevoked, { keyId: 'key_1', customerId: 'cus_a' })).toEqual({ keyId: 'key_1', customerId: 'cus_a' });
    const endpoints = endpointChanged({ subjectRoot: 'events.notify.test' });
    expect(endpoints.subject).toBe('events.notify.test-endpoints');
    expect(roundTrip(endpoints, { endpointId: 'we_abc' })).toEqual({ endpointId: 'we_abc' });
    expect(endpoints.decode(bytes('not-an-endpoint'))).toBeNull();
  });

  it('refuses a wallet movement without whole numbers and an account change that names no account', () => {
    expect(
      announcements.walletMoved.decode(bytes('{"customer_id":"cus_a","sequence":1.5,"balance_eur_cents":1,"held_eur_cents":0}')),
    ).toBeNull();
    expect(announcements.walletMoved.decode(bytes('{"customer_id":"cus_a","sequence":2}'))).toBeNull();
    expect(announcements.accountChanged.decode(bytes('{"account_id":"cus_1"}'))).toBeNull();
    expect(announcements.keyRevoked.decode(bytes('{"customer_id":"cus_a"}'))).toBeNull();
  });
});
