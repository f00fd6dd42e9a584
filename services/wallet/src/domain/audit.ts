import { balanceCapEurCents } from './movement';

export interface AuditedEntry {
  _id: string;
  wallet_id: string;
  seq: number;
  entry_id: string;
  kind: string;
  amount_eur_cents: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
  balance_after_eur_cents: number;
  held_after_eur_cents: number;
}

export interface AuditedCheckpoint {
  block: number;
  seq: number;
  balance_eur_cents: number;
  held_eur_cents: number;
}

const isCents = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

/**
 * Checks one wallet's ledger (entries in sequence order) against every money invariant of docs/architecture.md ("Money invariants") and the
 * hint rules of the ledger design (registration, checkpoints never ahead of the ledger and equal to it). Returns
 * one readable line per breach; an empty list means sound.
 */
export function auditWallet(
  walletId: string,
  entries: AuditedEntry[],
  hints: { registered: boolean; checkpoints: AuditedCheckpoint[]; checkpointInterval: number },
  capEurCents = balanceCapEurCents,
): string[] {
  const breaches: string[] = [];
  const breach = (message: string) => breaches.push(`wallet ${walletId}: ${message}`);
  let balance = 0;
  let held = 0;
  for (const [index, entry] of entries.entries()) {
    const at = `entry ${entry._id} (${entry.entry_id})`;
    const expectedSequence = index + 1;
    if (entry.seq !== expectedSequence) {
      breach(`${at}: sequence ${entry.seq} where ${expectedSequence} was expected (sequences must be contiguous from 1)`);
      return breaches;
    }
    if (entry._id !== `${walletId}:${entry.seq}`) breach(`${at}: _id does not match wallet and sequence`);
    const numbers = [
      entry.amount_eur_cents,
      entry.balance_delta_eur_cents,
      entry.held_delta_eur_cents,
      entry.balance_after_eur_cents,
      entry.held_after_eur_cents,
    ];
    if (!numbers.every(isCents)) {
      breach(`${at}: amounts are not integer cents`);
      return breaches;
    }
    if (entry.amount_eur_cents <= 0) breach(`${at}: amount ${entry.amount_eur_cents} is not positive`);
    const moved = entry.balance_delta_eur_cents + entry.held_delta_eur_cents;
    if (entry.kind === 'credit') {
      if (moved !== entry.amount_eur_cents)
        breach(`${at}: credit of ${entry.amount_eur_cents} moved ${moved} (balance_delta + held_delta must equal the amount)`);
    } else if (entry.kind === 'debit') {
      if (moved !== -entry.amount_eur_cents)
        breach(`${at}: debit of ${entry.amount_eur_cents} moved ${moved} (balance_delta + held_delta must equal minus the amount)`);
      if (balance < entry.amount_eur_cents) breach(`${at}: debit of ${entry.amount_eur_cents} taken from a balance of ${balance}`);
    } else {
      breach(`${at}: unknown kind ${JSON.stringify(entry.kind)}`);
    }
    if (entry.balance_after_eur_cents !== balance + entry.balance_delta_eur_cents) {
      breach(`${at}: balance_after ${entry.balance_after_eur_cents} != previous ${balance} + delta ${entry.balance_delta_eur_cents}`);
    }
    if (entry.held_after_eur_cents !== held + entry.held_delta_eur_cents) {
      breach(`${at}: held_after ${entry.held_after_eur_cents} != previous ${held} + delta ${entry.held_delta_eur_cents}`);
    }
    balance = entry.balance_after_eur_cents;
    held = entry.held_after_eur_cents;
    if (balance < 0) breach(`${at}: balance ${balance} is negative`);
    if (balance > capEurCents) breach(`${at}: balance ${balance} exceeds the cap of ${capEurCents}`);
    if (held < 0) breach(`${at}: held ${held} is negative`);
    if (held > 0 && balance < capEurCents) breach(`${at}: ${held} held while the balance ${balance} has room under the cap`);
  }
  const headSequence = entries.length;
  if (headSequence > 0 && !hints.registered)
    breach(`has ${headSequence} ledger entries but is not registered (recovery would never visit it)`);
  for (const checkpoint of hints.checkpoints) {
    const at = `checkpoint ${checkpoint.block}`;
    if (!isCents(checkpoint.seq) || checkpoint.seq !== checkpoint.block * hints.checkpointInterval) {
      breach(`${at}: sequence ${checkpoint.seq} is not block × ${hints.checkpointInterval}`);
      continue;
    }
    if (checkpoint.seq > headSequence) {
      breach(`${at}: sequence ${checkpoint.seq} is ahead of the ledger head ${headSequence}`);
      continue;
    }
    const entry = entries[checkpoint.seq - 1]!;
    if (checkpoint.balance_eur_cents !== entry.balance_after_eur_cents || checkpoint.held_eur_cents !== entry.held_after_eur_cents) {
      breach(
        `${at} (sequence ${checkpoint.seq}: balance ${checkpoint.balance_eur_cents}, held ${checkpoint.held_eur_cents}) disagrees with the ledger (balance ${entry.balance_after_eur_cents}, held ${entry.held_after_eur_cents})`,
      );
    }
  }
  return breaches;
}
