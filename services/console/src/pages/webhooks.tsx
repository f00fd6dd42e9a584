import { useEffect, useState } from 'preact/hooks';
import type { CreatedWebhookEndpoint, Events, WebhookEndpoints, WebhookTestSend } from '../api/types';
import { CopyButton, Empty, ErrorNotice, Loading, ReadOnlyNotice, Section, StatusBadge } from '../components/common';
import { useFeatures, useSession } from '../context';
import { formatDate } from '../domain/money';
import { useAction, usePolled } from '../hooks';

const eventTypes = ['batch.settled', 'topup.credited', 'topup.expired', 'seat.past_due', 'seat.suspended', 'wallet.low_balance'] as const;

/** Endpoints, a new endpoint's secret shown once, the recent events, and a test send where the API has one. */
export function WebhooksPage() {
  const { api } = useSession();
  const features = useFeatures();
  const endpoints = usePolled(() => api.get<WebhookEndpoints>('/v1/webhook_endpoints'), [api]);
  const events = usePolled(() => api.get<Events>('/v1/events', { limit: 20 }), [api], 30_000);
  const remove = useAction<unknown>();
  const test = useAction<WebhookTestSend>();
  const sentId = test.result?.id;
  const sentListed = !!sentId && !!events.data?.data.some((event) => event.id === sentId);
  // The ping is recorded a moment after it is queued: the events are read again until it shows (for a while).
  useEffect(() => {
    if (!sentId || sentListed) return;
    const timers = [1_000, 2_000, 4_000, 8_000].map((delayMs) => setTimeout(events.reload, delayMs));
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, [sentId, sentListed]);
  return (
    <>
      <h1>Webhooks</h1>
      {api.readOnly ? <ReadOnlyNotice what="Adding, removing or testing endpoints" /> : <CreateEndpoint onCreated={endpoints.reload} />}
      <Section title="Endpoints">
        <ErrorNotice action="Loading the endpoints" error={endpoints.error} />
        <ErrorNotice action="Removing the endpoint" error={remove.error} />
        <ErrorNotice action="Sending a test event" error={test.error} />
        {!endpoints.data && endpoints.loading && <Loading what="the endpoints" />}
        {endpoints.data?.data.length === 0 && <Empty>No endpoints: events are kept below but not delivered anywhere.</Empty>}
        <ul class="list">
          {endpoints.data?.data.map((endpoint) => (
            <li key={endpoint.id}>
              <code class="break">{endpoint.url}</code> <StatusBadge status={endpoint.status} />
              <span class="muted"> {endpoint.enabled_events.join(', ')}</span>
              {endpoint.disabled_reason && <span class="text-bad"> {endpoint.disabled_reason}</span>}
              {!api.readOnly && (
                <span class="button-row">
                  {features.webhookTestPath && (
                    <button
                      type="button"
                      class="button-small"
                      disabled={test.pending}
                      onClick={() =>
                        test.run(() =>
                          api.request<WebhookTestSend>(
                            'POST',
                            features.webhookTestPath!.replace(/\{[^}]+\}/, encodeURIComponent(endpoint.id)),
                          ),
                        )
                      }
                      data-testid="webhook-test"
                    >
                      Send a test event
                    </button>
                  )}
                  <button
                    type="button"
                    class="button-small button-quiet"
                    disabled={remove.pending}
                    onClick={() =>
                      remove.run(async () => {
                        await api.request('DELETE', `/v1/webhook_endpoints/${encodeURIComponent(endpoint.id)}`);
                        endpoints.reload();
                      })
                    }
                  >
                    Remove
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
        {test.result && (
          <p class="notice notice-info" role="status" data-testid="webhook-test-sent">
            Test event <code>{test.result.id}</code> queued for <code>{test.result.endpoint_id}</code>
            {sentListed ? ': it is in the recent events below.' : '; it shows below once recorded.'}
          </p>
        )}
        {!features.webhookTestPath && !api.readOnly && (
          <p class="muted">This API has no test send; place a small batch or a top-up to produce a real event.</p>
        )}
      </Section>
      <Section title="Recent events">
        <ErrorNotice action="Loading the events" error={events.error} />
        {!events.data && events.loading && <Loading what="the events" />}
        {events.data?.data.length === 0 && <Empty>No events yet.</Empty>}
        <ul class="list" data-testid="event-list">
          {events.data?.data.map((event) => (
            <li key={event.id}>
              <strong>{event.type}</strong> <span class="muted">{formatDate(new Date(event.created * 1000).toISOString())}</span>{' '}
              <code>{event.id}</code>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

function CreateEndpoint({ onCreated }: { onCreated(): void }) {
  const { api } = useSession();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [selected, setSelected] = useState<string[]>(['*']);
  const create = useAction<CreatedWebhookEndpoint>();
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const created = await api.request<CreatedWebhookEndpoint>('POST', '/v1/webhook_endpoints', {
        body: { url: url.trim(), enabled_events: selected, ...(description.trim() ? { description: description.trim() } : {}) },
      });
      onCreated();
      return created;
    });
  };
  const toggle = (name: string, on: boolean) =>
    setSelected(on ? [...selected.filter((entry) => entry !== '*' || name === '*'), name] : selected.filter((entry) => entry !== name));
  return (
    <Section title="Add an endpoint">
      <form class="filters" onSubmit={submit}>
        <label>
          URL (https)
          <input
            type="url"
            required
            value={url}
            placeholder="https://example.com/hooks/mtx"
            onInput={(event) => setUrl((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Description
          <input value={description} onInput={(event) => setDescription((event.target as HTMLInputElement).value)} />
        </label>
        <fieldset>
          <legend>Events</legend>
          {['*', ...eventTypes].map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                checked={selected.includes(name)}
                onChange={(event) => toggle(name, (event.target as HTMLInputElement).checked)}
              />
              {name === '*' ? 'all events' : name}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.pending || selected.length === 0}>
          Add endpoint
        </button>
      </form>
      <ErrorNotice action="Adding the endpoint" error={create.error} />
      {create.result && (
        <div class="notice notice-info" role="status">
          <strong>Signing secret for {create.result.url}</strong>
          <p>It is shown this once and never again: store it now where your receiver reads it.</p>
          <p>
            <code class="break" data-testid="webhook-secret">
              {create.result.secret}
            </code>{' '}
            <CopyButton text={create.result.secret} label="the signing secret" />
          </p>
          <button type="button" class="button-small" onClick={create.reset}>
            I have stored it
          </button>
        </div>
      )}
    </Section>
  );
}
