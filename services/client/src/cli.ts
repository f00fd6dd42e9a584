/**
 * Operator CLI over the public API: `npm run mtx -- <command> [flags]`.
 * Reads MTX_BASE_URL and MTX_API_KEY (else the .data/dev.json that `npm start` writes).
 */
import { parseArgs } from 'node:util';
import { MtxClient } from './client';
import { accounts, batchShow, ordersClose, ordersPlace } from './cli/trading-commands';
import { accountState, batches, positions } from './cli/portfolio-commands';
import { history, ordersModify } from './cli/desk-commands';
import { accountSettings } from './cli/settings-commands';
import { webhooksListen } from './cli/webhooks-listen';
import { webhooksTest } from './cli/webhooks-test';
import { bridgeCheck } from './cli/bridge-check';
import { assets, subscription, topupCreate, topupPaySandbox, topupShow, wallet } from './cli/money-commands';
import { type CliIo, type CommandContext, options, UsageError } from './cli/context';
import { usage } from './cli/usage';
import { ApiConnectionError, ApiError } from './errors';
import { SettingsError, loadSettings } from './settings';

export { usage } from './cli/usage';
export type { CliIo } from './cli/context';

const commands: Record<string, (context: CommandContext) => Promise<number>> = {
  wallet,
  assets,
  'topup:create': topupCreate,
  'topup:show': topupShow,
  'topup:pay-sandbox': topupPaySandbox,
  subscription,
  accounts,
  'orders:place': ordersPlace,
  'orders:close': ordersClose,
  'orders:modify': ordersModify,
  'batch:show': batchShow,
  positions,
  history,
  'account:state': accountState,
  'accounts:settings': accountSettings,
  batches,
  'webhooks:listen': webhooksListen,
  'webhooks:test': webhooksTest,
};

/** Runs one command; returns the exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (!command || flags.help || command === 'help') {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  // Talks to a terminal, not to the API: it needs no key nor base URL.
  if (command === 'bridge:check') return bridgeCheck(flags, io);
  const environment = { ...io.environment };
  if (flags['base-url']) environment.MTX_BASE_URL = flags['base-url'];
  if (flags.key) environment.MTX_API_KEY = flags.key;
  const settings = loadSettings(environment);
  const client = new MtxClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    onRetry: (event) =>
      io.stderr.write(`retrying ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason})\n`),
  });
  const print = (json: unknown, text: () => string) => io.stdout.write(flags.json ? `${JSON.stringify(json, null, 2)}\n` : text());
  const positionalId = (name: string) => {
    const value = rest[0];
    if (!value) throw new UsageError(`${command} needs the ${name}`);
    return value;
  };
  const run = commands[command];
  if (!run) throw new UsageError(`unknown command ${command}\n\n${usage}`);
  return run({ client, settings, flags, io, print, positionalId });
}

function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (error instanceof ApiConnectionError || error instanceof UsageError || error instanceof SettingsError) return error.message;
  if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) return `${(error as Error).message}\n\n${usage}`;
  return (error as Error).stack ?? String(error);
}

if (require.main === module) {
  runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, environment: process.env }).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      process.stderr.write(`mtx: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    },
  );
}
