import type { Db } from '@mtx/shared/mongo';
import { auditWallet, type AuditedCheckpoint, type AuditedEntry } from './domain/audit';
import { balanceCapEurCents } from './domain/movement';
import { checkpointInterval, createLedgerStore, type LedgerEntryDocument } from './store/ledger-store';

export interface AuditReport {
  ok: boolean;
  wallets_checked: number;
  entries_checked: number;
  breaches: string[];
}

// A damaged store could breach on every entry; the report stays readable and bounded.
const breachesReportedMax = 1_000;

/**
 * Audits every wallet in the wallet service's database (docs/architecture.md, "Money invariants"): contiguous sequences, each entry's
 * after-values equal to the previous ones plus its deltas, 0 ≤ balance ≤ cap, held ≥ 0 and only while the
 * balance is full, credits moving exactly their amount, no debit overdrawing, entry ids unique, every wallet
 * registered, and checkpoints (the cached heads) never ahead of the ledger and equal to it. It reads by full
 * scans: an offline/background tool, never a request path.
 */
export async function auditLedger(database: Db, capEurCents = balanceCapEurCents): Promise<AuditReport> {
  const store = createLedgerStore(database);
  const breaches: string[] = [];
  const registered = new Set<string>();
  for await (const wallet of store.wallets.find({}, { projection: { _id: 1 } })) registered.add(wallet._id);
  const checkpoints = new Map<string, AuditedCheckpoint[]>();
  for await (const checkpoint of store.checkpoints.find({})) {
    const list = checkpoints.get(checkpoint.wallet_id) ?? [];
    list.push({
      block: checkpoint.block,
      seq: checkpoint.seq,
      balance_eur_cents: checkpoint.balance_eur_cents,
      held_eur_cents: checkpoint.held_eur_cents,
    });
    checkpoints.set(checkpoint.wallet_id, list);
  }

  const entryIdsSeen = new Map<string, string>();
  const walletsSeen = new Set<string>();
  let entriesChecked = 0;
  let currentWallet: string | undefined;
  let currentEntries: AuditedEntry[] = [];

  const finishWallet = () => {
    if (currentWallet === undefined) return;
    const walletCheckpoints = checkpoints.get(currentWallet) ?? [];
    breaches.push(
      ...auditWallet(
        currentWallet,
        currentEntries,
        { registered: registered.has(currentWallet), checkpoints: walletCheckpoints, checkpointInterval },
        capEurCents,
      ),
    );
    walletsSeen.add(currentWallet);
  };

  const cursor = store.ledger.find({}).sort({ wallet_id: 1, seq: 1 });
  for await (const entry of cursor as AsyncIterable<LedgerEntryDocument>) {
    entriesChecked += 1;
    if (entry.wallet_id !== currentWallet) {
      finishWallet();
      currentWallet = entry.wallet_id;
      currentEntries = [];
    }
    currentEntries.push(entry);
    const earlier = entryIdsSeen.get(entry.entry_id);
    if (earlier !== undefined) breaches.push(`entry id ${entry.entry_id} applied twice: ${earlier} and ${entry._id}`);
    else entryIdsSeen.set(entry.entry_id, entry._id);
  }
  finishWallet();

  for (const [walletId, walletCheckpoints] of checkpoints) {
    if (walletsSeen.has(walletId)) continue;
    breaches.push(
      ...auditWallet(
        walletId,
        [],
        { registered: registered.has(walletId), checkpoints: walletCheckpoints, checkpointInterval },
        capEurCents,
      ),
    );
  }
  const walletsChecked = new Set([...walletsSeen, ...registered]).size;
  const reported =
    breaches.length > breachesReportedMax
      ? [...breaches.slice(0, breachesReportedMax), `… and ${breaches.length - breachesReportedMax} more`]
      : breaches;
  return { ok: breaches.length === 0, wallets_checked: walletsChecked, entries_checked: entriesChecked, breaches: reported };
}
