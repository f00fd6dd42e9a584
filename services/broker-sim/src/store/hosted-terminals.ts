import fs from 'node:fs/promises';
import path from 'node:path';
import type { SealedSecretMessage } from '@mtx/shared/connector/terminal-host';

/** A terminal the host runs, as kept across restarts: the secrets stay sealed (TERMINAL_HOST_SEAL_KEY). */
export interface HostedTerminalRecord {
  account_id: string;
  platform: 'mt4' | 'mt5';
  server: string;
  login: string;
  password: SealedSecretText;
  token: SealedSecretText;
}

/** A SealedSecret with its bytes in base64, as JSON holds them. */
export interface SealedSecretText {
  iv: string;
  tag: string;
  data: string;
}

export function sealedToText(sealed: SealedSecretMessage): SealedSecretText {
  return {
    iv: Buffer.from(sealed.iv).toString('base64'),
    tag: Buffer.from(sealed.tag).toString('base64'),
    data: Buffer.from(sealed.data).toString('base64'),
  };
}

export function textToSealed(text: SealedSecretText): SealedSecretMessage {
  return { iv: Buffer.from(text.iv, 'base64'), tag: Buffer.from(text.tag, 'base64'), data: Buffer.from(text.data, 'base64') };
}

/**
 * The terminals broker-sim hosts, in one JSON file in its data folder (a host keeps what it runs across its own
 * restarts: proto/terminalhost/v1/terminal_host.proto). Each change rewrites the file whole through a temporary
 * file and a rename, so a crash leaves the old list or the new one, never half of one; changes are written one
 * at a time, in the order made.
 */
export class HostedTerminalFile {
  private readonly records = new Map<string, HostedTerminalRecord>();
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** Reads the file; a missing one is an empty list. */
  async load(): Promise<HostedTerminalRecord[]> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    this.records.clear();
    for (const record of JSON.parse(text) as HostedTerminalRecord[]) this.records.set(record.account_id, record);
    return [...this.records.values()];
  }

  put(record: HostedTerminalRecord): Promise<void> {
    this.records.set(record.account_id, record);
    return this.save();
  }

  /** Forgets the account's terminal; false when it was not kept. */
  async delete(accountId: string): Promise<boolean> {
    if (!this.records.delete(accountId)) return false;
    await this.save();
    return true;
  }

  private save(): Promise<void> {
    const snapshot = JSON.stringify([...this.records.values()]);
    const write = async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      const temporary = `${this.file}.tmp`;
      await fs.writeFile(temporary, snapshot, { mode: 0o600 });
      await fs.rename(temporary, this.file);
    };
    this.writing = this.writing.then(write, write);
    return this.writing;
  }
}
