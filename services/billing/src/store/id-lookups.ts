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
