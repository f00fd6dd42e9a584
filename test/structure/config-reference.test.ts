import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configTables,
  describeType,
  propertyComments,
  referenceEndMarker,
  referenceStartMarker,
  regeneratedDocument,
  replaceGenerated,
} from '../../services/devstack/src/config-reference';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { servicesDirectory } from './source-files';

/**
 * docs/operations.md's configuration reference is generated from the services' config schemas
 * (`npm run docs:config`); this fails while the committed document says something the schemas no longer do.
 */
describe('the configuration reference', () => {
  const documentFile = path.join(repositoryRoot, 'docs', 'operations.md');

  it('is what the schemas generate now', async () => {
    const document = fs.readFileSync(documentFile, 'utf8');
    const regenerated = await regeneratedDocument(document, repositoryRoot);
    if (regenerated !== document) throw new Error('docs/operations.md is stale: run `npm run docs:config` and commit it');
    expect(document).toContain(referenceStartMarker);
  });

  it('has a row for every variable of every service config', async () => {
    const tables = await configTables(servicesDirectory);
    const withConfig = fs
      .readdirSync(servicesDirectory)
      .filter((folder) => folder !== 'shared' && fs.existsSync(path.join(servicesDirectory, folder, 'src', 'config.ts')));
    expect(new Set(tables.map((table) => table.source))).toEqual(
      new Set(['services/shared/src/service/config.ts', ...withConfig.map((folder) => `services/${folder}/src/config.ts`)]),
    );
    const wallet = tables.find((table) => table.source === 'services/wallet/src/config.ts')!;
    const { WalletConfigSchema } = await import('../../services/wallet/src/config');
    const shared = new Set(tables[0]!.rows.map((row) => row.name));
    expect(wallet.rows.map((row) => row.name)).toEqual(Object.keys(WalletConfigSchema.properties).filter((name) => !shared.has(name)));
    const connectors = tables.find((table) => table.source === 'services/connector-runtime/src/config.ts')!;
    expect(connectors.rows.find((row) => row.name === 'HEALTH_PORT')?.defaultValue).toBe('connector-mt4: `50070`; connector-mt5: `50071`');
  });

  it('reads descriptions from the JSDoc comments above properties, not from other comments', () => {
    const comments = propertyComments(`
      const Schema = Type.Object({
        /** First line
         * and second. */
        ALPHA_MS: Type.Integer({ default: 1 }),
        // a line comment is not documentation
        BETA: Type.String(),
        lower_case: Type.String(),
        /** Covers a group: belongs to the first. */
        GAMMA: Type.Integer(),
        DELTA: Type.Integer(),
      });`);
    expect([...comments]).toEqual([
      ['ALPHA_MS', 'First line and second.'],
      ['GAMMA', 'Covers a group: belongs to the first.'],
    ]);
  });

  it('states types with their allowed values and bounds', () => {
    expect(describeType({ anyOf: [{ const: 'a' }, { const: 'b' }] })).toBe('`a`, `b`');
    expect(describeType({ type: 'integer', minimum: 0, maximum: 65535 })).toBe('integer 0–65535');
    expect(describeType({ type: 'string', minLength: 8 })).toBe('string ≥ 8 chars');
  });

  it('refuses a document without its markers', () => {
    expect(() => replaceGenerated('# no markers', 'x')).toThrow(/markers/);
    expect(replaceGenerated(`a\n${referenceStartMarker}\nold\n${referenceEndMarker}\nb`, 'new')).toBe(
      `a\n${referenceStartMarker}\n\nnew\n\n${referenceEndMarker}\nb`,
    );
  });
});
