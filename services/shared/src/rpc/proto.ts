import path from 'node:path';
import { repositoryRoot } from '../infra/paths';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

/** The one proto tree (proto/<domain>/v1/*.proto), found from this code so every service loads the same files. */
export const protoRoot = path.join(repositoryRoot, 'proto');

/**
 * Conversion options shared by gRPC (proto-loader) and the NATS codec (protobufjs), so a message decodes to
 * the same plain object on both transports: snake_case kept, 64-bit integers as JS numbers, enums as names,
 * proto3 `optional` presence kept (a field that was not set stays undefined; slippage 0 stays 0).
 */
export const conversionOptions = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true } as const;

const packageCache = new Map<string, grpc.GrpcObject>();

/** Loads a proto file by its path under proto/ (for example `wallet/v1/wallet.proto`). */
export function loadGrpcPackage(relativeFile: string): grpc.GrpcObject {
  let loaded = packageCache.get(relativeFile);
  if (!loaded) {
    const definition = protoLoader.loadSync(relativeFile, { ...conversionOptions, includeDirs: [protoRoot] });
    loaded = grpc.loadPackageDefinition(definition);
    packageCache.set(relativeFile, loaded);
  }
  return loaded;
}

/** Finds a service constructor such as `mtx.wallet.v1.WalletService` in a loaded package. */
export function grpcServiceClient(relativeFile: string, fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = loadGrpcPackage(relativeFile);
  for (const part of fullName.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'function') throw new Error(`gRPC service ${fullName} not found in ${relativeFile}`);
  return node as grpc.ServiceClientConstructor;
}

let messageRoot: protobuf.Root | undefined;

/** protobufjs root over the whole tree, for messages that travel outside gRPC (the NATS connector protocol). */
export function protobufRoot(): protobuf.Root {
  if (!messageRoot) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(protoRoot, target));
    root.loadSync(['connector/v1/connector.proto', 'connector/v1/inspect.proto', 'terminalhost/v1/terminal_host.proto'], {
      keepCase: true,
    });
    root.resolveAll();
    messageRoot = root;
  }
  return messageRoot;
}

export interface MessageCodec<T> {
  encode(message: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

/** Encoder/decoder for one message type, e.g. `mtx.connector.v1.PlaceRequest`. */
export function messageCodec<T>(fullName: string): MessageCodec<T> {
  const type = protobufRoot().lookupType(fullName);
  return {
    encode(message: T): Uint8Array {
      return type.encode(type.fromObject(message as Record<string, unknown>)).finish();
    },
    decode(bytes: Uint8Array): T {
      return type.toObject(type.decode(bytes), conversionOptions) as T;
    },
  };
}
