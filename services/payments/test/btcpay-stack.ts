import crypto from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { freePort } from '@mtx/devstack/ports';
import { startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';

/** The fake BTCPay store the tests' payments is configured for (the crypto-sandbox's btcpay personality). */
export const btcpayStore = {
  storeId: 'WalletStackStore',
  apiKey: 'wallet-stack-btcpay-api-key',
  webhookSecret: 'wallet-stack-btcpay-webhook-secret',
};

export interface BtcpayStack {
  stack: WalletStack;
  /** The fake's Greenfield root, as BTCPAY_URL. */
  btcpayUrl: string;
  /** Where the fake's webhooks are relayed to: payments' hook listener unless a test points them elsewhere. */
  relayTo(hooksUrl: string): void;
  /** Calls the fake's Greenfield API with the store's key. */
  greenfield(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** POSTs a webhook body to payments' hook listener, signed with `signature` (the right one unless given). */
  postWebhook(body: string, signature?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export const signBtcpay = (body: string, secret = btcpayStore.webhookSecret) =>
  `sha256=${crypto.createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/**
 * The wallet stack with payments on PAYMENTS_PROVIDER=btcpay against the crypto-sandbox's fake BTCPay Server. The
 * fake's webhooks pass through a relay of the test's (a plain HTTP hop), so a test can send them to another replica.
 */
export async function startBtcpayStack(options: {
  mongodbUrl: string;
  natsUrl: string;
  paymentsEnv?: Record<string, string>;
}): Promise<BtcpayStack> {
  const sandboxPort = await freePort();
  let target = '';
  const relay = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'btcpay-sig'])
        if (typeof request.headers[name] === 'string') headers[name] = request.headers[name];
      fetch(`${target}/v1/hooks/payments/btcpay`, {
        method: 'POST',
        headers,
        body: Buffer.concat(chunks),
        signal: AbortSignal.timeout(10_000),
      })
        .then(async (answer) => {
          response.statusCode = answer.status;
          response.end(await answer.text());
        })
        .catch(() => {
          response.statusCode = 502;
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayUrl = `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}/btcpay-webhooks`;
  const btcpayUrl = `http://127.0.0.1:${sandboxPort}/btcpay`;
  const stack = await startWalletStack({
    mongodbUrl: options.mongodbUrl,
    natsUrl: options.natsUrl,
    sandboxEnv: {
      PORT: String(sandboxPort),
      BTCPAY_STORE_ID: btcpayStore.storeId,
      BTCPAY_API_KEY: btcpayStore.apiKey,
      BTCPAY_WEBHOOK_SECRET: btcpayStore.webhookSecret,
      BTCPAY_WEBHOOK_URL: relayUrl,
      BTCPAY_EXPIRY_CHECK_MS: '100',
    },
    paymentsEnv: {
      PAYMENTS_PROVIDER: 'btcpay',
      BTCPAY_URL: btcpayUrl,
      BTCPAY_STORE_ID: btcpayStore.storeId,
      BTCPAY_API_KEY: btcpayStore.apiKey,
      BTCPAY_WEBHOOK_SECRET: btcpayStore.webhookSecret,
      ...options.paymentsEnv,
    },
  });
  target = stack.paymentsHooksUrl;
  return {
    stack,
    btcpayUrl,
    relayTo(hooksUrl) {
      target = hooksUrl;
    },
    async greenfield(method, path, body) {
      const response = await fetch(`${btcpayUrl}/api/v1/stores/${btcpayStore.storeId}${path}`, {
        method,
        headers: { authorization: `token ${btcpayStore.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async postWebhook(body, signature = signBtcpay(body)) {
      const response = await fetch(`${stack.paymentsHooksUrl}/v1/hooks/payments/btcpay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'btcpay-sig': signature },
        body,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await stack.close();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
