/**
 * The first object key given twice in a JSON text, as its path in the error format (`orders[1].symbol`), or
 * undefined. JSON.parse keeps the last value of a repeated key, which hides a client's bug; none of the parsers we
 * use (secure-json-parse, ajv) reports it, so this scan does, over text already known to be valid JSON. Keys are
 * compared decoded, so `"symbol"` and `"\u0073ymbol"` are the same key.
 */
export function firstDuplicateKey(text: string): string | undefined {
  // One frame per open object or array: an object's keys so far, or an array's index.
  const frames: Array<{ keys: Set<string> | undefined; index: number; key: string; expectKey: boolean }> = [];
  for (let position = 0; position < text.length; position++) {
    const character = text.charCodeAt(position);
    const top = frames[frames.length - 1];
    if (character === 0x22 /* " */) {
      const start = position;
      let escaped = false;
      for (position++; position < text.length; position++) {
        const inner = text.charCodeAt(position);
        if (inner === 0x5c /* \ */) {
          escaped = true;
          position++;
        } else if (inner === 0x22) break;
      }
      if (top?.keys && top.expectKey) {
        const raw = text.slice(start + 1, position);
        const key = escaped ? (JSON.parse(text.slice(start, position + 1)) as string) : raw;
        top.expectKey = false;
        top.key = key;
        if (top.keys.has(key)) return pathOf(frames);
        top.keys.add(key);
      }
    } else if (character === 0x7b /* { */) frames.push({ keys: new Set(), index: 0, key: '', expectKey: true });
    else if (character === 0x5b /* [ */) frames.push({ keys: undefined, index: 0, key: '', expectKey: false });
    else if (character === 0x7d /* } */ || character === 0x5d /* ] */) frames.pop();
    else if (character === 0x2c /* , */ && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
  }
  return undefined;
}

function pathOf(frames: Array<{ keys: Set<string> | undefined; index: number; key: string }>): string {
  let path = '';
  for (const frame of frames) {
    if (frame.keys) path += path ? `.${frame.key}` : frame.key;
    else path += `[${frame.index}]`;
  }
  return path;
}
