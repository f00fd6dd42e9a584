/** Plain-text tables for terminals: no dependencies, no colours required, stable column widths. */

export interface Column<Row> {
  header: string;
  /** Cell text for a row; null and undefined print as an empty cell. */
  value: (row: Row) => string | number | boolean | null | undefined;
  /** Numbers align right by default, everything else left. */
  align?: 'left' | 'right';
  /** Longer cells are cut with an ellipsis. */
  maxWidth?: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC, which is what this matches.
const ansiPattern = /\u001b\[[0-9;]*m/g;

/** Printed width: ANSI colour codes take no room, and wide (East Asian, emoji) characters take two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of text.replace(ansiPattern, '')) {
    const code = character.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0x300 && code < 0x370)) continue;
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x1f300 && code <= 0x1faff) ||
      (code >= 0x20000 && code <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

function truncate(text: string, maxWidth: number): string {
  if (displayWidth(text) <= maxWidth) return text;
  let result = '';
  for (const character of text.replace(ansiPattern, '')) {
    if (displayWidth(result + character) > maxWidth - 1) break;
    result += character;
  }
  return `${result}…`;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const room = Math.max(0, width - displayWidth(text));
  return align === 'right' ? `${' '.repeat(room)}${text}` : `${text}${' '.repeat(room)}`;
}

function cellText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  // One cell is one line: a newline would break the grid.
  return String(value).replace(/\s*[\r\n]+\s*/g, ' ');
}

/**
 * Renders rows under a header and a rule, columns separated by two spaces, trailing spaces trimmed:
 *
 *     ACCOUNT   PLATFORM  STATUS     VOLUME
 *     ────────  ────────  ─────────  ──────
 *     acc_1     mt5       filled       0.10
 */
export function renderTable<Row>(columns: Array<Column<Row>>, rows: readonly Row[]): string {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const raw = column.value(row);
      const text = cellText(raw);
      return { text: column.maxWidth ? truncate(text, column.maxWidth) : text, numeric: typeof raw === 'number' };
    }),
  );
  const alignments = columns.map(
    (column, index) =>
      column.align ?? (cells.length > 0 && cells.every((row) => row[index]!.numeric || row[index]!.text === '') ? 'right' : 'left'),
  );
  const widths = columns.map((column, index) =>
    Math.max(displayWidth(column.header), ...cells.map((row) => displayWidth(row[index]!.text))),
  );
  const line = (texts: string[]) =>
    texts
      .map((text, index) => pad(text, widths[index]!, alignments[index]!))
      .join('  ')
      .replace(/\s+$/, '');
  const output = [line(columns.map((column) => column.header)), line(widths.map((width) => '─'.repeat(width)))];
  for (const row of cells) output.push(line(row.map((cell) => cell.text)));
  return `${output.join('\n')}\n`;
}

/** Label and value pairs, labels padded to one width: for a single object such as a wallet or a top-up. */
export function renderDetails(pairs: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(0, ...pairs.map(([label]) => displayWidth(label)));
  return `${pairs.map(([label, value]) => `${pad(label, width, 'left')}  ${cellText(value)}`.replace(/\s+$/, '')).join('\n')}\n`;
}

/** EUR cents as `EUR 1,234.56`; negative amounts keep their sign. */
export function formatEurCents(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return '';
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(Math.trunc(cents));
  const euros = Math.floor(absolute / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}EUR ${euros}.${String(absolute % 100).padStart(2, '0')}`;
}
