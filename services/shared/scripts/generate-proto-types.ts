import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repositoryRoot } from '../src/infra/paths';
import { protoRoot } from '../src/rpc/proto';

/**
 * TypeScript types for every message and service in proto/, made by proto-loader's own generator with the same
 * conversion options the services load the protos with (snake_case, numbers for 64-bit, enum names, defaults,
 * oneofs), so a `Foo__Output` type is exactly what a call or a NATS decode hands back.
 */
export const generatedProtoDirectory = path.join(repositoryRoot, 'services/shared/src/generated/proto');

export function protoFiles(): string[] {
  return fs
    .readdirSync(protoRoot, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.proto') && !file.startsWith('grpc/'))
    .sort();
}

export function generateProtoTypes(outputDirectory: string): void {
  const generator = path.join(path.dirname(require.resolve('@grpc/proto-loader/package.json')), 'build/bin/proto-loader-gen-types.js');
  fs.rmSync(outputDirectory, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      generator,
      '--keepCase',
      '--longs=Number',
      '--enums=String',
      '--defaults',
      '--oneofs',
      '--grpcLib=@grpc/grpc-js',
      `--outDir=${outputDirectory}`,
      // Relative, so the files name `proto/...` as their origin wherever the repository is checked out.
      `--includeDirs=${path.relative(repositoryRoot, protoRoot)}`,
      '--',
      ...protoFiles(),
    ],
    { cwd: repositoryRoot, stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 },
  );
}

/** Every generated file, by path relative to the output folder. */
export function readTree(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of fs.readdirSync(directory, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(directory, file);
    if (fs.statSync(full).isFile()) files.set(file, fs.readFileSync(full, 'utf8'));
  }
  return files;
}

if (require.main === module) {
  const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-proto-types-'));
  generateProtoTypes(temporary);
  fs.rmSync(generatedProtoDirectory, { recursive: true, force: true });
  fs.cpSync(temporary, generatedProtoDirectory, { recursive: true });
  fs.rmSync(temporary, { recursive: true, force: true });
  console.log(
    `proto types written to ${path.relative(process.cwd(), generatedProtoDirectory)} (${readTree(generatedProtoDirectory).size} files)`,
  );
}
