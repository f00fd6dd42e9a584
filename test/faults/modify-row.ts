/**
 * What the bridge row B5 (bridge.test.ts) reads of a modify under a killed connector: the modify requests the
 * broker received per ticket (a ticket with two was modified twice), and the customer's positions' stops.
 */
import { eventually } from '@mtx/shared/testing';
import { accountPath } from './bridge-terminals';
import type { Customer, FaultStack, TradingAccount } from './stack';

interface BrokerRequestRecord {
  action: string;
  ticket: number;
  state: string;
}

/** The modify requests the broker holds for the account, by ticket. */
export async function modifiesByTicket(stack: FaultStack, account: TradingAccount): Promise<Map<number, BrokerRequestRecord[]>> {
  const { requests } = await stack.control<{ requests: BrokerRequestRecord[] }>(`${accountPath(account)}/requests`);
  const byTicket = new Map<number, BrokerRequestRecord[]>();
  for (const record of requests.filter((entry) => entry.action === 'modify'))
    byTicket.set(record.ticket, [...(byTicket.get(record.ticket) ?? []), record]);
  return byTicket;
}

/** Waits until the broker has every modify of these accounts done (none held by a `delay_ms` fault any more). */
export async function modifiesDone(stack: FaultStack, accounts: TradingAccount[], deadlineMs = 10_000): Promise<void> {
  await eventually(
    async () => {
      for (const account of accounts)
        for (const records of (await modifiesByTicket(stack, account)).values())
          if (records.some((record) => record.state !== 'done')) return false;
      return true;
    },
    deadlineMs,
    50,
  );
}

/** Waits until the broker holds a modify of each account in `processing`. */
export async function modifiesHeld(stack: FaultStack, accounts: TradingAccount[], deadlineMs = 5_000): Promise<void> {
  await eventually(
    async () => {
      for (const account of accounts) {
        const records = [...(await modifiesByTicket(stack, account)).values()].flat();
        if (!records.some((record) => record.state === 'processing')) return false;
      }
      return true;
    },
    deadlineMs,
    20,
  );
}

/** The stops of every open position of the customer, as GET /v1/positions reads them now. */
export async function stopsOf(
  stack: FaultStack,
  customer: Customer,
): Promise<Array<{ account_id: string; stop_loss: number; take_profit: number }>> {
  const answer = await stack.api(customer.readKey, 'GET', '/v1/positions');
  return answer.body.results.flatMap((result: { account_id: string; positions: Array<{ stop_loss: number; take_profit: number }> }) =>
    result.positions.map((position) => ({
      account_id: result.account_id,
      stop_loss: position.stop_loss,
      take_profit: position.take_profit,
    })),
  );
}
