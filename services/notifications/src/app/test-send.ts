import crypto from 'node:crypto';
import type { NatsConnection } from 'nats';
import { AppError } from '@mtx/shared/errors';
import { customerEventSubject, pingEventType, type CustomerEvent, type CustomerEventChannel } from '@mtx/shared/customer-events';
import type { Endpoints } from './endpoints';

const publishTimeoutMs = 2_000;

export interface TestSendResult {
  event_id: string;
  endpoint_id: string;
  created: number;
}

/**
 * A test send: a `ping` event for one of the customer's endpoints, published on the NOTIFY stream like every
 * customer event, so the leader records it and delivers it through the normal path (signed, retried, in order
 * behind the endpoint's earlier events) whichever replica took the request. The answer comes once the stream
 * has it; its id is random, as each test send is a new occurrence.
 */
export class TestSender {
  constructor(
    private readonly options: {
      nats: NatsConnection;
      channel: CustomerEventChannel;
      endpoints: Pick<Endpoints, 'owned'>;
      nowMs: () => number;
    },
  ) {}

  async send(customerId: string, endpointId: string): Promise<TestSendResult> {
    const endpoint = await this.options.endpoints.owned(customerId, endpointId);
    if (endpoint.status !== 'enabled')
      throw new AppError('conflict', `webhook endpoint ${endpointId} is disabled (${endpoint.disabled_reason}); create a new one`);
    const event: CustomerEvent = {
      id: `evt_${crypto.randomBytes(16).toString('hex')}`,
      type: pingEventType,
      customer_id: customerId,
      created: Math.floor(this.options.nowMs() / 1000),
      data: { endpoint_id: endpoint._id, url: endpoint.url },
    };
    const jetstream = this.options.nats.jetstream({ timeout: publishTimeoutMs });
    await jetstream.publish(customerEventSubject(this.options.channel, event.type), new TextEncoder().encode(JSON.stringify(event)), {
      msgID: event.id,
      timeout: publishTimeoutMs,
    });
    return { event_id: event.id, endpoint_id: endpoint._id, created: event.created };
  }
}
