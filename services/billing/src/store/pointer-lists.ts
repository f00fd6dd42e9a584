import type { Collection } from 'mongodb';
import { pointerKey, type CustomerDocument, type PointerDocument, type PointerKind } from '../domain/model';
import { idLookupsInFlight, lookUpEach } from './many-reads';
import type { CachedView } from './view-cache';

/**
 * The customer's seat and server ids in ordinal order. With no cached view, or many pointers missing, every
 * pointer of the customer is read in one command by its indexed `customer_id`: that read holds each pointer
 * written before it, and one written later is followed by a revision change, so the view this builds is reloaded.
 * Otherwise the cached ids are extended by `_id` reads. An `$in` over the one pointers collection would scan it on
 * FerretDB.
 */
export async function listItemIds(
  pointers: Collection<PointerDocument>,
  customer: CustomerDocument,
  cached: CachedView | undefined,
): Promise<{ seatIds: string[]; serverIds: string[] }> {
  const known = { seat: cached?.seatIds ?? [], server: cached?.serverIds ?? [] };
  const hints = { seat: customer.seat_count_hint ?? 0, server: customer.server_count_hint ?? 0 };
  if (!cached || hints.seat - known.seat.length + hints.server - known.server.length > idLookupsInFlight) {
    const itemByOrdinal = { seat: new Map<number, string>(), server: new Map<number, string>() };
    for (const pointer of await pointers.find({ customer_id: customer._id }).toArray())
      itemByOrdinal[pointer.kind]?.set(pointer.ordinal, pointer.item_id);
    // Ordinals are gapless from 0; the first gap ends the list, as for `_id` reads.
    const gapless = (kind: PointerKind) => {
      const ids = [...known[kind]];
      for (let itemId = itemByOrdinal[kind].get(ids.length); itemId !== undefined; itemId = itemByOrdinal[kind].get(ids.length))
        ids.push(itemId);
      return ids;
    };
    return { seatIds: gapless('seat'), serverIds: gapless('server') };
  }
  const [seatIds, serverIds] = await Promise.all([
    extendPointers(pointers, customer._id, 'seat', known.seat, hints.seat),
    extendPointers(pointers, customer._id, 'server', known.server, hints.server),
  ]);
  return { seatIds, serverIds };
}

/**
 * `known` and then the pointers of `kind` after it, read by `_id` up to the hint, a few in flight, and then
 * one by one until the first gap: the hint can lag behind (its updates may be lost).
 */
async function extendPointers(
  collection: Collection<PointerDocument>,
  customerId: string,
  kind: PointerKind,
  known: string[],
  hint: number,
): Promise<string[]> {
  const ids = [...known];
  if (hint > ids.length) {
    const wanted = Array.from({ length: hint - ids.length }, (_, index) => pointerKey(customerId, kind, ids.length + index));
    const found = await lookUpEach(wanted, idLookupsInFlight, async (key) => (await collection.findOne({ _id: key }))?.item_id);
    for (const itemId of found) {
      if (itemId === undefined) return ids;
      ids.push(itemId);
    }
  }
  for (;;) {
    const pointer = await collection.findOne({ _id: pointerKey(customerId, kind, ids.length) });
    if (!pointer) return ids;
    ids.push(pointer.item_id);
  }
}
