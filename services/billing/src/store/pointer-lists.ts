import type { Collection } from 'mongodb';
import { pointerKey, type CustomerDocument, type PointerDocument, type PointerKind } from '../domain/model';
import { idLookupsInFlight, lookUpEach } from './many-reads';

/**
 * One kind of a customer's pointers as read: the item ids in the order their pointers were found (ordinal order,
 * but for a gap filled later, which comes last), the next ordinal to read, and the ordinals below it that held no
 * pointer when read.
 *
 * A gap is not supposed to happen: ordinals are claimed one after another, each by an insert. But a claim whose
 * insert failed in an unknown way could once leave one (the claim after it took the next number), and two claims
 * in flight in one process land in either order. A read that stopped at a gap would hide every item bought after
 * it, charged and never listed; so a gap is stepped over, remembered, and looked at again on each reload, in case
 * a later claim filled it.
 */
export interface PointerRun {
  ids: string[];
  next: number;
  gaps: number[];
}

export const emptyRun = (): PointerRun => ({ ids: [], next: 0, gaps: [] });

/**
 * The customer's seat and server pointers. With no cached view, or many pointers to read, every pointer of the
 * customer is read in one command by its indexed `customer_id`: that read holds each pointer written before it,
 * and one written later is followed by a revision change, so the view this builds is reloaded. Otherwise the
 * cached runs are extended by `_id` reads. An `$in` over the one pointers collection would scan it on FerretDB.
 */
export async function listItemIds(
  pointers: Collection<PointerDocument>,
  customer: CustomerDocument,
  cached: { seats: PointerRun; servers: PointerRun } | undefined,
): Promise<{ seats: PointerRun; servers: PointerRun }> {
  const hints = { seat: customer.seat_count_hint ?? 0, server: customer.server_count_hint ?? 0 };
  const toRead = (run: PointerRun, hint: number) => Math.max(0, hint - run.next) + run.gaps.length;
  if (!cached || toRead(cached.seats, hints.seat) + toRead(cached.servers, hints.server) > idLookupsInFlight) {
    const itemByOrdinal = { seat: new Map<number, string>(), server: new Map<number, string>() };
    for (const pointer of await pointers.find({ customer_id: customer._id }).toArray())
      itemByOrdinal[pointer.kind]?.set(pointer.ordinal, pointer.item_id);
    return { seats: runOf(itemByOrdinal.seat), servers: runOf(itemByOrdinal.server) };
  }
  const [seats, servers] = await Promise.all([
    extendRun(pointers, customer._id, 'seat', cached.seats, hints.seat),
    extendRun(pointers, customer._id, 'server', cached.servers, hints.server),
  ]);
  return { seats, servers };
}

/** Every pointer read, in ordinal order, with the ordinals below the highest that held none. */
function runOf(itemByOrdinal: Map<number, string>): PointerRun {
  const run = emptyRun();
  let highest = -1;
  for (const ordinal of itemByOrdinal.keys()) if (ordinal > highest) highest = ordinal;
  for (let ordinal = 0; ordinal <= highest; ordinal += 1) {
    const itemId = itemByOrdinal.get(ordinal);
    if (itemId === undefined) run.gaps.push(ordinal);
    else run.ids.push(itemId);
  }
  run.next = highest + 1;
  return run;
}

/**
 * `known`, its gaps looked at again, and then the pointers of `kind` after it: read by `_id` up to the hint, a few
 * in flight, stepping over a missing one (the hint says a later one exists), and then one by one until the first
 * missing, since the hint can lag behind (its updates may be lost).
 */
async function extendRun(
  collection: Collection<PointerDocument>,
  customerId: string,
  kind: PointerKind,
  known: PointerRun,
  hint: number,
): Promise<PointerRun> {
  const run: PointerRun = { ids: [...known.ids], next: known.next, gaps: [] };
  const itemAt = async (ordinal: number) => (await collection.findOne({ _id: pointerKey(customerId, kind, ordinal) }))?.item_id;
  const wanted = [...known.gaps, ...Array.from({ length: Math.max(0, hint - known.next) }, (_, index) => known.next + index)];
  const found = await lookUpEach(wanted, idLookupsInFlight, itemAt);
  wanted.forEach((ordinal, index) => {
    const itemId = found[index];
    if (itemId === undefined) run.gaps.push(ordinal);
    else run.ids.push(itemId);
  });
  run.next = Math.max(known.next, hint);
  for (;;) {
    const itemId = await itemAt(run.next);
    if (itemId === undefined) break;
    run.ids.push(itemId);
    run.next += 1;
  }
  // A gap at the end is only the next ordinal, not yet taken.
  while (run.gaps.length > 0 && run.gaps[run.gaps.length - 1] === run.next - 1) run.next = run.gaps.pop()!;
  return run;
}
