/** Reads of many billing documents at once that avoid `$in`, which FerretDB answers with a scan. */
import type { Collection, Filter } from 'mongodb';

/** `_id` lookups one read (pointers, seats, claims) keeps in flight. */
export const idLookupsInFlight = 8;

/**
 * `lookUp` for every item, at most `inFlight` at once, the answers in the items' order. Billing reads many
 * documents of one kind by `_id` one command each (an `$in` over a whole collection scans on FerretDB,
 * docs/architecture.md, "Storage rules"); the bound keeps one reader from taking the whole driver pool.
 */
export async function lookUpEach<Item, Answer>(
  items: readonly Item[],
  inFlight: number,
  lookUp: (item: Item) => Promise<Answer>,
): Promise<Answer[]> {
  const answers = new Array<Answer>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await lookUp(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, worker));
  return answers;
}

/**
 * The documents of `ids` among one customer's, by `customer_id` (an indexed equality: a search of the index on
 * MongoDB and on the repo's FerretDB, where an `$in` over the whole collection would scan it). It also returns the
 * customer's other documents of that kind, released seats included, which are left out here.
 */
export async function byCustomer<T extends { _id: string; customer_id: string }>(
  collection: Collection<T>,
  customerId: string,
  ids: string[],
): Promise<Map<string, T>> {
  const wanted = new Set(ids);
  const found = new Map<string, T>();
  for (const document of (await collection.find({ customer_id: customerId } as Filter<T>).toArray()) as T[])
    if (wanted.has(document._id)) found.set(document._id, document);
  return found;
}
