/**
 * Every API operation and the client method that calls it; a test checks the document has no operation
 * missing here (provider postbacks excepted: clients never call them).
 */
export const clientOperations: Readonly<Record<string, string>> = {
  'GET /v1/wallet': 'wallet.get',
  'GET /v1/wallet/assets': 'wallet.listAssets',
  'POST /v1/wallet/topup': 'wallet.createTopup',
  'GET /v1/wallet/topup/{id}': 'wallet.getTopup',
  'GET /v1/subscription': 'subscription.get',
  'PATCH /v1/subscription': 'subscription.update',
  'GET /v1/servers/plans': 'servers.listPlans',
  'GET /v1/servers': 'servers.list',
  'POST /v1/servers': 'servers.create',
  'DELETE /v1/servers/{id}': 'servers.delete',
  'GET /v1/accounts': 'accounts.list',
  'POST /v1/accounts': 'accounts.create',
  'DELETE /v1/accounts/{account_id}': 'accounts.delete',
  'POST /v1/orders': 'orders.place',
  'POST /v1/orders/close': 'orders.close',
  'POST /v1/orders/modify': 'orders.modify',
  'GET /v1/orders/batches/{batch_id}': 'orders.getBatch',
  'GET /v1/orders/batches': 'orders.listBatches',
  'GET /v1/positions': 'positions.list',
  'GET /v1/history/deals': 'history.deals',
  'GET /v1/history/orders': 'history.orders',
  'GET /v1/accounts/{account_id}/state': 'accounts.state',
  'POST /v1/webhook_endpoints': 'webhookEndpoints.create',
  'GET /v1/webhook_endpoints': 'webhookEndpoints.list',
  'DELETE /v1/webhook_endpoints/{id}': 'webhookEndpoints.delete',
  'POST /v1/webhook_endpoints/{id}/test': 'webhookEndpoints.test',
  'GET /v1/events': 'events.list',
};
