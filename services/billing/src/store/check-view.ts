import type { Filter } from 'mongodb';
import type { CustomerView, OccupancyDocument, SeatState, ServerDocument, ServerState } from '../domain/model';
import type { BillingCollections } from './collections';

/** What a scheduler pass already read of one customer, before its renewals. */
export interface PassReads {
  /** Every occupancy document of the customer (one `customer_id` read), as the pass found them. */
  occupancies: ReadonlyMap<string, OccupancyDocument>;
  cancelAtPeriodEnd: boolean;
}

/**
 * The customer's view for the wallet.low_balance check after a scheduler pass, built from what the pass already
 * holds (the customer's occupancy and settings) and the seats and servers read again by `customer_id`, after the
 * pass's writes: two indexed equalities instead of a full reload's five reads (revision, pointers, settings,
 * seats, occupancy).
 *
 * It serves that check only, never the view cache: it is not tied to a revision. An occupancy the pass changed
 * (a released seat) is stale here, but the seat it belongs to reads `released` afterwards and so is left out, as
 * is an empty one; the projection only counts occupied seats. A seat bought after the pass's read has no
 * occupancy here, so the customer's occupancy is read again in that (rare) case.
 */
export async function readCheckView(collections: BillingCollections, customerId: string, reads: PassReads): Promise<CustomerView> {
  const [seatDocuments, serverDocuments] = await Promise.all([
    collections.seats.find({ customer_id: customerId }).toArray(),
    collections.servers.find({ customer_id: customerId } as Filter<ServerDocument>).toArray(),
  ]);
  const listed = seatDocuments.filter((seat) => seat.status !== 'pending' && seat.status !== 'released');
  let occupancies = reads.occupancies;
  if (listed.some((seat) => !occupancies.has(seat._id))) {
    const fresh = new Map<string, OccupancyDocument>();
    for (const occupancy of await collections.occupancy.find({ customer_id: customerId }).toArray()) fresh.set(occupancy._id, occupancy);
    occupancies = fresh;
  }
  const seats: SeatState[] = [];
  for (const seat of listed) {
    const occupancy = occupancies.get(seat._id);
    if (occupancy) seats.push({ seat, occupancy });
  }
  const servers: ServerState[] = await Promise.all(
    serverDocuments
      .filter((server) => server.status !== 'pending' && server.status !== 'released')
      .map(async (server) => ({
        server,
        cancel_at_period_end: (await collections.serverCancellations.findOne({ _id: server._id })) !== null,
      })),
  );
  return {
    customer_id: customerId,
    revision: null,
    cancel_at_period_end: reads.cancelAtPeriodEnd,
    seats,
    servers,
    ended_by_cancellation: false,
  };
}
