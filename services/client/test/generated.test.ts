import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientSources, openApiFile, schemaFile } from '../scripts/generate';

/**
 * The committed document and types must be what the current routes produce; otherwise the client would
 * drift from the API. Fix a failure with `npm run client:generate` and commit the two files.
 */
describe('generated client sources', () => {
  it('match the document the gateway builds from its current routes', async () => {
    const sources = await generateClientSources();
    const committedDocument = fs.existsSync(openApiFile) ? fs.readFileSync(openApiFile, 'utf8') : '';
    const committedSchema = fs.existsSync(schemaFile) ? fs.readFileSync(schemaFile, 'utf8') : '';
    expect(committedDocument, 'services/client/openapi.json is stale: run `npm run client:generate`').toBe(sources.openApiJson);
    expect(committedSchema, 'services/client/src/generated/schema.ts is stale: run `npm run client:generate`').toBe(
      sources.schemaTypeScript,
    );
  });

  it('types every path of the document', async () => {
    const document = JSON.parse(fs.readFileSync(openApiFile, 'utf8')) as { paths: Record<string, object> };
    const schema = fs.readFileSync(schemaFile, 'utf8');
    for (const path of Object.keys(document.paths)) expect(schema, path).toContain(`"${path}": {`);
  });
});

describe('client coverage', () => {
  it('has a method for every operation of the document, and every listed method exists', async () => {
    const { MtxClient, clientOperations } = await import('../src/client');
    const document = JSON.parse(fs.readFileSync(openApiFile, 'utf8')) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const callable = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        // Provider postbacks take no API key (security: []); API clients never call them.
        .filter(([, operation]) => !(Array.isArray(operation.security) && operation.security.length === 0))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(callable.filter((operation) => !(operation in clientOperations))).toEqual([]);
    const client = new MtxClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_unused' }) as unknown as Record<string, unknown>;
    // A method may sit in a group of a group (accounts.settings.get).
    for (const method of Object.values(clientOperations)) {
      const found = method.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], client);
      expect(typeof found, method).toBe('function');
    }
  });
});
