import { useRef, useState } from 'preact/hooks';
import { batchDeadlineMs } from '../api/client';
import type { ModifyRequest, ModifyResult, Positions } from '../api/types';
import { SubmissionKeys } from '../domain/idempotency';
import { formatNumber } from '../domain/money';
import { useAction } from '../hooks';
import { useSession } from '../context';
import { ErrorNotice, Section, StatusBadge, TableScroll } from './common';

type Position = NonNullable<Positions['results'][number]['positions']>[number];

export interface SelectedTicket {
  account_id: string;
  position: Position;
}

interface Change {
  stop_loss: string;
  take_profit: string;
  price: string;
  expiration: string;
}

const noChange: Change = { stop_loss: '', take_profit: '', price: '', expiration: '' };

/** The change as the API takes it: a field left blank is left out (left as it is); 0 removes a stop. */
function changeBody(change: Change): Partial<ModifyRequest> {
  const body: Partial<ModifyRequest> = {};
  if (change.stop_loss.trim() !== '') body.stop_loss = Number(change.stop_loss);
  if (change.take_profit.trim() !== '') body.take_profit = Number(change.take_profit);
  if (change.price.trim() !== '') body.price = Number(change.price);
  // A datetime-local value is the person's local time; the API takes an instant.
  if (change.expiration !== '') body.expiration = new Date(change.expiration).toISOString();
  return body;
}

/**
 * Moves the stops (and a pending order's price or expiration) of exactly the ticked tickets: the selection is
 * shown with its current stops, then sent once (an Idempotency-Key per submission, reused on a retry of the same
 * body), and each ticket's result shown.
 */
export function ModifyStops({ tickets, onModified }: { tickets: SelectedTicket[]; onModified(): void }) {
  const { api } = useSession();
  const [open, setOpen] = useState(false);
  const [change, setChange] = useState<Change>(noChange);
  const modify = useAction<ModifyResult>();
  const keys = useRef(new SubmissionKeys());
  const fields = changeBody(change);
  const hasPending = tickets.some((ticket) => ticket.position.kind === 'pending');

  const byAccount = new Map<string, number[]>();
  for (const { account_id, position } of tickets) byAccount.set(account_id, [...(byAccount.get(account_id) ?? []), position.ticket]);

  const submit = (event: Event) => {
    event.preventDefault();
    const body = { accounts: [...byAccount].map(([account_id, list]) => ({ account_id, tickets: list })), ...fields } as ModifyRequest;
    void modify.run(async () => {
      const result = await api.request<ModifyResult>('POST', '/v1/orders/modify', {
        body,
        idempotencyKey: keys.current.keyFor(body),
        deadlineMs: batchDeadlineMs,
      });
      onModified();
      return result;
    });
  };

  if (!open)
    return (
      <button
        type="button"
        disabled={tickets.length === 0}
        onClick={() => {
          modify.reset();
          setOpen(true);
        }}
        data-testid="modify-open"
      >
        Modify stops of {tickets.length} selected
      </button>
    );

  const input = (name: keyof Change, label: string, hint: string, type: 'number' | 'datetime-local' = 'number') => (
    <label>
      {label}
      <input
        type={type}
        step={type === 'number' ? 'any' : undefined}
        min={type === 'number' ? 0 : undefined}
        value={change[name]}
        placeholder={hint}
        onInput={(event) => setChange({ ...change, [name]: (event.target as HTMLInputElement).value })}
        data-testid={`modify-${name}`}
      />
    </label>
  );

  return (
    <Section title={`Modify ${tickets.length} selected`}>
      <TableScroll label="Tickets to modify">
        <table data-testid="modify-selection">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Ticket</th>
              <th scope="col">Symbol</th>
              <th scope="col">Type</th>
              <th scope="col" class="number">
                Stop loss now
              </th>
              <th scope="col" class="number">
                Take profit now
              </th>
            </tr>
          </thead>
          <tbody>
            {tickets.map(({ account_id, position }) => (
              <tr key={`${account_id}#${position.ticket}`}>
                <td>{account_id}</td>
                <td>{position.ticket}</td>
                <td>{position.symbol}</td>
                <td>{position.type}</td>
                <td class="number">{position.stop_loss ? formatNumber(position.stop_loss, 5) : '—'}</td>
                <td class="number">{position.take_profit ? formatNumber(position.take_profit, 5) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p class="muted">A field left blank is left as it is on every ticket; 0 removes a stop.</p>
      <form class="filters" onSubmit={submit}>
        {input('stop_loss', 'New stop loss', 'unchanged')}
        {input('take_profit', 'New take profit', 'unchanged')}
        {hasPending && input('price', 'New price (pending orders)', 'unchanged')}
        {hasPending && input('expiration', 'New expiration (pending orders)', '', 'datetime-local')}
        <span class="button-row">
          <button type="submit" disabled={modify.pending || Object.keys(fields).length === 0} data-testid="modify-send">
            {modify.pending ? 'Modifying…' : `Modify ${tickets.length} ticket(s)`}
          </button>
          <button type="button" class="button-quiet" disabled={modify.pending} onClick={() => setOpen(false)}>
            Cancel
          </button>
        </span>
      </form>
      <ErrorNotice action="Modifying" error={modify.error} />
      {modify.result && <ModifyResults result={modify.result} />}
    </Section>
  );
}

function ModifyResults({ result }: { result: ModifyResult }) {
  const { summary } = result;
  return (
    <>
      <p data-testid="modify-summary">
        Modified {summary.modified} of {summary.matched}
        {result.idempotent_replay ? ' (replayed, nothing sent again)' : ''}: {summary.failed} failed, {summary.unknown} unknown.{' '}
        <span class="muted">
          Batch <code>{result.batch_id}</code>
        </span>
      </p>
      <TableScroll label="Modify results">
        <table data-testid="modify-results">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Ticket</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">
                Stop loss
              </th>
              <th scope="col" class="number">
                Take profit
              </th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {result.results.flatMap((account) =>
              account.results.length === 0
                ? [
                    <tr key={account.account_id}>
                      <td>{account.account_id}</td>
                      <td>—</td>
                      <td>
                        <StatusBadge status={account.status} />
                      </td>
                      <td class="number">—</td>
                      <td class="number">—</td>
                      <td>{account.message}</td>
                    </tr>,
                  ]
                : account.results.map((ticket) => (
                    <tr key={`${account.account_id}#${ticket.ticket}`}>
                      <td>{account.account_id}</td>
                      <td>{ticket.ticket}</td>
                      <td>
                        <StatusBadge status={ticket.status} />
                      </td>
                      <td class="number">{ticket.stop_loss ? formatNumber(ticket.stop_loss, 5) : '—'}</td>
                      <td class="number">{ticket.take_profit ? formatNumber(ticket.take_profit, 5) : '—'}</td>
                      <td>
                        {ticket.retcode_description || ticket.message} <span class="muted">({account.latency_ms} ms)</span>
                      </td>
                    </tr>
                  )),
            )}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}
