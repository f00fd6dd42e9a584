import { MongoBulkWriteError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/service/errors';
import { checkGrpcHealth, createUnaryClient, grpc, startGrpcServer, unaryHandlers, type GrpcServerHandle } from '../src/rpc/grpc';
import { grpcServiceClient } from '../src/rpc/proto';

let server: GrpcServerHandle;
let failingServer: grpc.Server;
let failingPort: number;

beforeAll(async () => {
  server = await startGrpcServer([], '127.0.0.1:0');
  // A bare server whose Check method throws, to exercise the error path end to end over a real socket.
  failingServer = new grpc.Server();
  failingServer.addService(
    grpcServiceClient('grpc/health/v1/health.proto', 'grpc.health.v1.Health').service,
    unaryHandlers({
      Check: async (request: { service: string }) => {
        if (request.service === 'boom') throw new Error('internal secret');
        // A parameter and details that quote what the caller sent, in any script.
        if (request.service === 'quoted')
          throw new AppError('invalid_request', 'symbol_map names an unknown symbol', {
            param: 'symbol_map (the name "Ë")',
            details: { symbol: 'Ë€中', newline: 'a\nb' },
          });
        throw new AppError('insufficient_balance', 'balance 5 cannot pay 10', {
          param: 'amount_eur_cents',
          details: { balance_eur_cents: 5 },
        });
      },
    }),
  );
  failingPort = await new Promise<number>((resolve, reject) =>
    failingServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
});

afterAll(async () => {
  await server?.close(100);
  failingServer?.forceShutdown();
});

describe('gRPC helpers', () => {
  it('serves the standard health service and reports NOT_SERVING when told', async () => {
    const address = `127.0.0.1:${server.port}`;
    expect(await checkGrpcHealth(address)).toBe(true);
    server.setServing(false);
    expect(await checkGrpcHealth(address)).toBe(false);
    server.setServing(true);
    expect(await checkGrpcHealth(address)).toBe(true);
  });

  it('carries our error code, param and details across gRPC', async () => {
    const client = createUnaryClient<any>('grpc/health/v1/health.proto', 'grpc.health.v1.Health', `127.0.0.1:${failingPort}`, 2_000);
    const error = await client.call('Check', { service: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).toBody()).toEqual({
      code: 'insufficient_balance',
      message: 'balance 5 cannot pay 10',
      param: 'amount_eur_cents',
      details: { balance_eur_cents: 5 },
    });
    const quoted = await client.call('Check', { service: 'quoted' }).catch((caught: unknown) => caught);
    expect((quoted as AppError).toBody()).toEqual({
      code: 'invalid_request',
      message: 'symbol_map names an unknown symbol',
      param: 'symbol_map (the name "Ë")',
      details: { symbol: 'Ë€中', newline: 'a\nb' },
    });
    const internal = await client.call('Check', { service: 'boom' }).catch((caught: unknown) => caught);
    expect((internal as AppError).code).toBe('internal');
    expect((internal as AppError).message).not.toContain('secret');
    client.close();
  });

  it("keeps our servers and clients out of grpc-js's channelz registry, which a bare server and client enter", async () => {
    const handlers = grpc.getChannelzHandlers() as unknown as Record<
      string,
      (call: { request: Record<string, number> }, callback: (error: unknown, value: any) => void) => void
    >;
    const ask = (method: string, request: Record<string, number>) =>
      new Promise<any>((resolve, reject) => handlers[method]!({ request }, (error, value) => (error ? reject(error) : resolve(value))));
    const servers = await ask('GetServers', { start_server_id: 0, max_results: 1_000 });
    const listening: string[] = servers.server.flatMap((entry: { listen_socket: { name: string }[] }) =>
      entry.listen_socket.map((socket) => socket.name),
    );
    expect(listening.some((name) => name.endsWith(`:${failingPort}`))).toBe(true);
    expect(listening.some((name) => name.endsWith(`:${server.port}`))).toBe(false);

    const address = `127.0.0.1:${server.port}`;
    const ours = createUnaryClient<any>('grpc/health/v1/health.proto', 'grpc.health.v1.Health', address, 2_000);
    const Bare = grpcServiceClient('grpc/health/v1/health.proto', 'grpc.health.v1.Health');
    const bare = new Bare(address, grpc.credentials.createInsecure());
    try {
      await ours.call('Check', { service: '' });
      await new Promise((resolve, reject) =>
        (bare as any).Check({ service: '' }, (error: unknown, value: unknown) => (error ? reject(error) : resolve(value))),
      );
      const channels = await ask('GetTopChannels', { start_channel_id: 0, max_results: 1_000 });
      const targets: string[] = channels.channel.map((channel: { data: { target: string } }) => channel.data.target);
      // Two channels to the same address, one of them registered: the bare client's.
      expect(targets.filter((target) => target.endsWith(address))).toHaveLength(1);
    } finally {
      ours.close();
      bare.close();
    }
  });

  it('turns a missing backend into a retriable unavailable error within the deadline', async () => {
    const client = createUnaryClient<any>('grpc/health/v1/health.proto', 'grpc.health.v1.Health', '127.0.0.1:1', 300);
    const started = Date.now();
    await expect(client.call('Check', { service: '' })).rejects.toMatchObject({ code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(3_000);
    client.close();
  });
});

describe('store outage classification', () => {
  it('treats driver network errors and raw socket errors of a dying store as unavailable, and nothing else', async () => {
    const { isStoreUnavailable } = await import('../src/rpc/grpc');
    const ended = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
    const selection = Object.assign(new Error('Server selection timed out after 3000 ms'), { name: 'MongoServerSelectionError' });
    expect(isStoreUnavailable(ended)).toBe(true);
    expect(isStoreUnavailable(selection)).toBe(true);
    expect(isStoreUnavailable(new Error('duplicate key'))).toBe(false);
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
  });

  it('treats a batched write lost with its connection as unavailable, and one that names refused documents as not', async () => {
    const { isStoreUnavailable } = await import('../src/rpc/grpc');
    // The driver builds these itself; its constructor takes a command error and the bulk result it had so far.
    const result = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    const bulkError = (error: Record<string, unknown>) =>
      new MongoBulkWriteError(error as unknown as ConstructorParameters<typeof MongoBulkWriteError>[0], result as never);
    // What the driver threw when FerretDB was killed under the wallet's batched inserts.
    const lost = bulkError({ message: 'the connection closed before the command was written', code: 0 });
    expect(isStoreUnavailable(lost)).toBe(true);
    const refused = bulkError({
      message: 'E11000 duplicate key error',
      code: 11000,
      writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000' }],
    });
    expect(isStoreUnavailable(refused)).toBe(false);
  });
});
