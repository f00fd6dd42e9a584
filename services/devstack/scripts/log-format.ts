const palette = [36, 32, 33, 35, 34, 96, 92, 93, 95, 94];
const colors = new Map<string, string>();

export function colorFor(name: string): string {
  let color = colors.get(name);
  if (!color) {
    color = `\x1b[${palette[colors.size % palette.length]}m`;
    colors.set(name, color);
  }
  return process.stdout.isTTY ? color : '';
}

const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const hidden = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'trace_flags']);

/** Renders a pino JSON line as one readable line; anything else passes through unchanged. */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    const level = levelNames[Number(record.level)] ?? String(record.level ?? '');
    const extras = Object.entries(record)
      .filter(([key]) => !hidden.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
      .join(' ');
    const levelText = process.stdout.isTTY && Number(record.level) >= 50 ? `\x1b[31m${level}\x1b[0m` : level;
    return `${levelText} ${String(record.msg ?? '')}${extras ? `  ${extras}` : ''}`;
  } catch {
    return line;
  }
}
