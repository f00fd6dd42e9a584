import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../src/progress';
import { displayWidth, formatEurCents, renderDetails, renderTable } from '../src/table';

interface Leg {
  account: string;
  status: string;
  volume: number | null;
  message?: string;
}

const columns = [
  { header: 'ACCOUNT', value: (leg: Leg) => leg.account },
  { header: 'STATUS', value: (leg: Leg) => leg.status },
  { header: 'VOLUME', value: (leg: Leg) => leg.volume },
  { header: 'MESSAGE', value: (leg: Leg) => leg.message, maxWidth: 12 },
];

describe('renderTable', () => {
  it('aligns every column to its widest cell, numbers to the right, with a rule under the header', () => {
    const output = renderTable(columns, [
      { account: 'acc_mt4_long_name', status: 'filled', volume: 0.1, message: '' },
      { account: 'acc_2', status: 'rejected', volume: 12.5, message: 'no money' },
    ]);
    const lines = output.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const header = lines[0]!;
    // Every column starts where its header starts, on every line.
    const starts = ['ACCOUNT', 'STATUS', 'VOLUME', 'MESSAGE'].map((title) => header.indexOf(title));
    expect(lines[2]!.indexOf('acc_mt4_long_name')).toBe(starts[0]);
    expect(lines[3]!.indexOf('rejected')).toBe(starts[1]);
    expect(lines[3]!.indexOf('no money')).toBe(starts[3]);
    // Right-aligned numbers end where the column's rule ends.
    const ruleEnds = [...lines[1]!.matchAll(/─+/g)].map((match) => match.index! + match[0].length);
    expect(lines[2]!.indexOf('0.1') + '0.1'.length).toBe(ruleEnds[2]);
    expect(lines[3]!.indexOf('12.5') + '12.5'.length).toBe(ruleEnds[2]);
    expect(ruleEnds[0]! - starts[0]!).toBe('acc_mt4_long_name'.length);
    for (const line of lines) expect(line).toBe(line.trimEnd());
  });

  it('truncates long cells with an ellipsis, flattens newlines and prints null as empty', () => {
    const output = renderTable(columns, [
      { account: 'a', status: 'unknown', volume: null, message: 'the terminal did not\nanswer in time' },
    ]);
    const row = output.trimEnd().split('\n')[2]!;
    const cell = row.slice(row.indexOf('the'));
    expect(cell).toBe('the termina…');
    expect(displayWidth(cell)).toBe(12);
    expect(output).not.toContain('\nanswer');
    expect(row).not.toContain('null');
  });

  it('measures colour codes as zero width and wide characters as two', () => {
    expect(displayWidth('\u001b[32mok\u001b[0m')).toBe(2);
    expect(displayWidth('日本')).toBe(4);
    const output = renderTable(
      [
        { header: 'NAME', value: (row: { name: string }) => row.name },
        { header: 'X', value: () => 'x' },
      ],
      [{ name: '日本' }, { name: 'abcd' }],
    );
    const [, , first, second] = output.split('\n');
    expect(displayWidth(first!.slice(0, first!.indexOf('x')))).toBe(displayWidth(second!.slice(0, second!.indexOf('x'))));
  });

  it('prints just the header and rule when there are no rows', () => {
    expect(renderTable(columns, [])).toBe('ACCOUNT  STATUS  VOLUME  MESSAGE\n───────  ──────  ──────  ───────\n');
  });
});

describe('renderDetails and formatEurCents', () => {
  it('pads labels to one width', () => {
    expect(
      renderDetails([
        ['balance', 'EUR 1.00'],
        ['covers upcoming', 'yes'],
        ['note', undefined],
      ]),
    ).toBe('balance          EUR 1.00\ncovers upcoming  yes\nnote\n');
  });

  it('formats cents as euros with thousands separators and keeps the sign', () => {
    expect(formatEurCents(0)).toBe('EUR 0.00');
    expect(formatEurCents(5)).toBe('EUR 0.05');
    expect(formatEurCents(100000)).toBe('EUR 1,000.00');
    expect(formatEurCents(123456789)).toBe('EUR 1,234,567.89');
    expect(formatEurCents(-1250)).toBe('-EUR 12.50');
    expect(formatEurCents(null)).toBe('');
  });
});

describe('createProgress', () => {
  it('prints one line per change when the stream is not a terminal, and a final line', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
    let nowMs = 0;
    const progress = createProgress(stream, { label: 'top-up 7', now: () => nowMs });
    progress.update('pending');
    progress.update('pending');
    nowMs = 1500;
    progress.update('partial');
    nowMs = 3000;
    progress.succeed('paid');
    progress.update('ignored after the end');
    expect(written).toBe('… top-up 7: pending (0.0 s)\n… top-up 7: partial (1.5 s)\n✔ top-up 7: paid (3.0 s)\n');
  });
});
