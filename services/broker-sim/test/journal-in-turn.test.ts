import { createLogger } from '@mtx/shared/logger';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal } from '../src/store/journal';

/**
 * The journal written in the caller's turn (a memory filesystem's): each line is in the file when `append`
 * returns, in order, and a reopened journal replays them; the group-committed journal writes a turn's lines later,
 * together.
 */

const logger = createLogger('journal-test', { level: 'silent' });
const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function event(seq: number) {
  return { _id: `acct:${seq}`, account: 'acct', seq, at: new Date(1_767_261_600_000 + seq), effects: [] };
}

async function journalIn(writeInTurn: boolean) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-in-turn-'));
  directories.push(directory);
  const file = path.join(directory, 'journal.ndjson');
  return { file, journal: await FileJournal.open(file, logger, { writeInTurn }) };
}

describe('broker-sim journal', () => {
  it('in turn: each line is in the file when append returns, and a reopened journal replays them in order', async () => {
    const { file, journal } = await journalIn(true);
    const appended = [1, 2, 3].map((seq) => journal.append(event(seq)));
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
    await Promise.all(appended);
    await journal.close();
    const reopened = await FileJournal.open(file, logger, { writeInTurn: true });
    expect(reopened.events.map((line) => line.seq)).toEqual([1, 2, 3]);
    await reopened.close();
  });

  it('group-committed: the turn’s lines are written after it, together', async () => {
    const { file, journal } = await journalIn(false);
    const appended = [1, 2].map((seq) => journal.append(event(seq)));
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    await Promise.all(appended);
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    await journal.close();
  });
});
