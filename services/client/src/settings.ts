import fs from 'node:fs';
import path from 'node:path';

/** A trading account as `npm start` and `npm run admin -- customer:create` describe it. */
export interface AccountInfo {
  id: string;
  platform: 'mt4' | 'mt5';
  server?: string;
  /** What this broker appends to symbol names (`.xx`, `m`, `-ecn`, or nothing). */
  symbol_suffix?: string;
}

export interface ClientSettings {
  baseUrl: string;
  /** The full (`sk_`) key, or a read-only one when that is all there is. */
  apiKey: string;
  readKey: string | undefined;
  /** The crypto sandbox's address, for paying a top-up locally. */
  sandboxUrl: string | undefined;
  accounts: AccountInfo[];
  /** Where the settings came from, for messages. */
  source: string;
}

/** Missing or malformed configuration; the message says what to set. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

interface DevFile {
  base_url?: string;
  full_key?: string;
  read_key?: string;
  sandbox_url?: string;
  accounts?: AccountInfo[];
}

/** The repository's data folder: `npm start` writes dev.json there. */
const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

/** dev.json's location: MTX_DEV_FILE, else DATA_DIR/dev.json, else .data/dev.json at the repository root. */
export function devFilePath(environment: NodeJS.ProcessEnv = process.env): string {
  if (environment.MTX_DEV_FILE) return path.resolve(environment.MTX_DEV_FILE);
  const dataDirectory = environment.DATA_DIR ? path.resolve(environment.DATA_DIR) : path.join(repositoryRoot, '.data');
  return path.join(dataDirectory, 'dev.json');
}

function parseAccounts(value: string): AccountInfo[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new SettingsError('MTX_ACCOUNTS must be a JSON array such as [{"id":"acc_…","platform":"mt5","symbol_suffix":".xx"}]');
  }
  if (
    !Array.isArray(parsed) ||
    !parsed.every((entry) => entry && typeof entry.id === 'string' && (entry.platform === 'mt4' || entry.platform === 'mt5'))
  ) {
    throw new SettingsError('MTX_ACCOUNTS entries need an "id" and a "platform" of "mt4" or "mt5"');
  }
  return parsed as AccountInfo[];
}

/**
 * Reads MTX_BASE_URL, MTX_API_KEY, MTX_READ_KEY, MTX_SANDBOX_URL and MTX_ACCOUNTS (a JSON array), each
 * falling back to the dev.json that `npm start` writes. Fails with a message saying what to set.
 */
export function loadSettings(environment: NodeJS.ProcessEnv = process.env): ClientSettings {
  const file = devFilePath(environment);
  let devFile: DevFile = {};
  if (fs.existsSync(file)) {
    try {
      devFile = JSON.parse(fs.readFileSync(file, 'utf8')) as DevFile;
    } catch (error) {
      throw new SettingsError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const baseUrl = environment.MTX_BASE_URL ?? devFile.base_url;
  const apiKey = environment.MTX_API_KEY ?? devFile.full_key ?? environment.MTX_READ_KEY ?? devFile.read_key;
  if (!baseUrl || !apiKey) {
    throw new SettingsError(
      `no API address or key: set MTX_BASE_URL and MTX_API_KEY, or run \`npm start\` (it writes ${path.relative(process.cwd(), file) || file})`,
    );
  }
  const fromEnvironment = Boolean(environment.MTX_BASE_URL || environment.MTX_API_KEY);
  return {
    baseUrl,
    apiKey,
    readKey: environment.MTX_READ_KEY ?? devFile.read_key,
    sandboxUrl: environment.MTX_SANDBOX_URL ?? devFile.sandbox_url,
    accounts: environment.MTX_ACCOUNTS ? parseAccounts(environment.MTX_ACCOUNTS) : (devFile.accounts ?? []),
    source: fromEnvironment ? 'environment' : file,
  };
}
