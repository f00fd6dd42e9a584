import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { protoRoot } from '../src/rpc/proto';
import { generatedProtoDirectory, generateProtoTypes, protoFiles, readTree } from '../scripts/generate-proto-types';

const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-proto-types-test-'));
afterAll(() => fs.rmSync(temporary, { recursive: true, force: true }));

describe('types generated from proto/', () => {
  it('are current: regenerating them from the protos gives the committed files (run `npm run proto:generate`)', () => {
    generateProtoTypes(temporary);
    const fresh = readTree(temporary);
    const committed = readTree(generatedProtoDirectory);
    expect(fresh.size).toBeGreaterThan(protoFiles().length);
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [file, text] of fresh) expect(committed.get(file), file).toBe(text);
  }, 60_000);

  it('name every service of every proto, so each call site has a client type', () => {
    const generated = readTree(generatedProtoDirectory);
    for (const file of protoFiles()) {
      const services = [...fs.readFileSync(path.join(protoRoot, file), 'utf8').matchAll(/^service (\w+)/gm)].map((match) => match[1]!);
      for (const service of services)
        expect(
          [...generated.keys()].some((name) => name.endsWith(`/${service}.ts`)),
          service,
        ).toBe(true);
    }
  });
});
