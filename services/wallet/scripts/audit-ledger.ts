/**
 * `npm run audit:ledger`: checks every wallet's ledger against the money invariants (docs/architecture.md, "Money invariants") and exits
 * non-zero on any breach, printing each. The store is MONGODB_URL / MONGODB_DATABASE_PREFIX from the
 * environment, else `mongodb_url` / `mongodb_database_prefix` from the running stack's .data/dev.json, else the
 * configuration defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';
import { auditLedger } from '../src/audit';
import { loadWalletConfig } from '../src/config';

function storeSettings(): { url: string; prefix: string; source: string } {
  const defaults = loadWalletConfig({});
  let fromFile: { mongodb_url?: unknown; mongodb_database_prefix?: unknown } = {};
  const devFile = path.join(defaultDataDirectory, 'dev.json');
  if (fs.existsSync(devFile)) fromFile = JSON.parse(fs.readFileSync(devFile, 'utf8')) as typeof fromFile;
  const url = process.env.MONGODB_URL || (typeof fromFile.mongodb_url === 'string' ? fromFile.mongodb_url : undefined);
  const prefix =
    process.env.MONGODB_DATABASE_PREFIX ||
    (typeof fromFile.mongodb_database_prefix === 'string' ? fromFile.mongodb_database_prefix : undefined);
  const source = process.env.MONGODB_URL ? 'MONGODB_URL' : url ? devFile : 'defaults';
  return { url: url ?? defaults.MONGODB_URL, prefix: prefix ?? defaults.MONGODB_DATABASE_PREFIX, source };
}

async function main(): Promise<number> {
  const settings = storeSettings();
  const database = databaseName(settings.prefix, 'wallet');
  const client = await connectMongo(settings.url, { socketTimeoutMS: 600_000 });
  try {
    const started = Date.now();
    const report = await auditLedger(client.db(database));
    for (const breach of report.breaches) process.stdout.write(`BREACH ${breach}\n`);
    process.stdout.write(
      `${report.ok ? 'OK' : 'FAILED'}: ${report.wallets_checked} wallets, ${report.entries_checked} entries, ${report.breaches.length} breaches ` +
        `(database ${database} via ${settings.source}, ${Date.now() - started} ms)\n`,
    );
    return report.ok ? 0 : 1;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`audit could not run: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
