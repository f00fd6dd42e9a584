import { useState } from 'preact/hooks';
import type { BatchDetail, BatchPage } from '../api/types';
import { Empty, ErrorNotice, Loading, Section, StatusBadge, TableScroll } from '../components/common';
import { useSession } from '../context';
import { formatDate } from '../domain/money';
import { usePolled } from '../hooks';
import { routeHref } from '../routes';

const pageSize = 10;

/** Batch history, newest first, a page at a time (the API's cursor); a batch's detail under #/batches/<id>. */
export function BatchesPage({ argument }: { argument?: string }) {
  if (argument) return <BatchView batchId={argument} />;
  return <BatchList />;
}

function BatchList() {
  const { api } = useSession();
  const [kind, setKind] = useState<'' | 'orders' | 'close'>('');
  // The cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = usePolled(
    () => api.get<BatchPage>('/v1/orders/batches', { limit: pageSize, starting_after: cursor, kind: kind || undefined }),
    [api, cursor, kind],
  );
  return (
    <>
      <h1>Batches</h1>
      <div class="filters">
        <label>
          Kind
          <select
            value={kind}
            onChange={(event) => {
              setKind((event.target as HTMLSelectElement).value as typeof kind);
              setCursors([undefined]);
            }}
          >
            <option value="">all</option>
            <option value="orders">placed orders</option>
            <option value="close">closes</option>
          </select>
        </label>
        <button type="button" class="button-small" onClick={page.reload}>
          Refresh
        </button>
      </div>
      <ErrorNotice action="Loading the batch history" error={page.error} />
      {!page.data && page.loading && <Loading what="the batch history" />}
      {page.data && page.data.data.length === 0 && <Empty>No batches yet: place one from the trade ticket.</Empty>}
      {page.data && page.data.data.length > 0 && (
        <TableScroll label="Batches">
          <table data-testid="batch-list">
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col">Kind</th>
                <th scope="col">Created</th>
                <th scope="col">Settled</th>
                <th scope="col">Summary</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((batch) => (
                <tr key={batch.batch_id}>
                  <td>
                    <a href={routeHref('batches', batch.batch_id)}>{batch.batch_id}</a>
                  </td>
                  <td>{batch.kind}</td>
                  <td>{formatDate(batch.created_at)}</td>
                  <td>{batch.settled ? 'yes' : <StatusBadge status="pending" />}</td>
                  <td>{summaryText(batch.summary)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <div class="button-row">
        <button type="button" class="button-small" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          class="button-small"
          disabled={!page.data?.has_more}
          onClick={() => setCursors([...cursors, page.data!.data[page.data!.data.length - 1]!.batch_id])}
        >
          Older
        </button>
      </div>
    </>
  );
}

function summaryText(summary: Record<string, unknown>): string {
  return Object.entries(summary)
    .filter(([, value]) => typeof value === 'number' && value > 0)
    .map(([name, value]) => `${value} ${name.replace(/_/g, ' ')}`)
    .join(', ');
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function BatchView({ batchId }: { batchId: string }) {
  const { api } = useSession();
  const batch = usePolled(() => api.get<BatchDetail>(`/v1/orders/batches/${encodeURIComponent(batchId)}`), [api, batchId], 5_000);
  const rows = (batch.data?.results ?? []) as Array<Record<string, unknown>>;
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((name) => name !== 'results').slice(0, 10);
  return (
    <>
      <h1>Batch {batchId}</h1>
      <p>
        <a href={routeHref('batches')}>Back to the history</a>
      </p>
      <ErrorNotice action="Loading the batch" error={batch.error} />
      {!batch.data && batch.loading && <Loading what="the batch" />}
      {batch.data && (
        <Section
          title={`${batch.data.kind} batch, ${formatDate(batch.data.created_at)}`}
          actions={<StatusBadge status={batch.data.settled ? 'ok' : 'pending'} />}
        >
          <p data-testid="batch-summary">{summaryText(batch.data.summary as Record<string, unknown>) || 'no legs'}</p>
          <TableScroll label="Legs of the batch">
            <table>
              <thead>
                <tr>
                  {columns.map((column) => (
                    <th key={column} scope="col">
                      {column.replace(/_/g, ' ')}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={index}>
                    {columns.map((column) => (
                      <td key={column}>{column === 'status' ? <StatusBadge status={cell(row[column])} /> : cell(row[column])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </Section>
      )}
    </>
  );
}
