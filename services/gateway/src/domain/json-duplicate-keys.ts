/** What a JSON text holds that JSON.parse accepts and a request body must not. */
export type JsonTextProblem =
  /** A key given twice in one object, as its path in the error format (`orders[1].symbol`). */
  | { kind: 'duplicate_key'; path: string }
  /** Objects or arrays nested deeper than allowed. */
  | { kind: 'too_deep' }
  /** A number JSON.parse reads as ±Infinity. */
  | { kind: 'number_out_of_range' };

/**
 * The first object key given twice in a JSON text, as its path in the error format (`orders[1].symbol`), or
 * undefined. See firstJsonTextProblem.
 */
export function firstDuplicateKey(text: string): string | undefined {
  const problem = firstJsonTextProblem(text, Number.POSITIVE_INFINITY);
  return problem?.kind === 'duplicate_key' ? problem.path : undefined;
}

/** A number token's characters after its first: digits, sign, point and exponent. */
function isNumberCharacter(character: number): boolean {
  return (
    (character >= 0x30 && character <= 0x39) ||
    character === 0x2e ||
    character === 0x65 ||
    character === 0x45 ||
    character === 0x2b ||
    character === 0x2d
  );
}

/**
 * The first problem of a JSON text already known to be valid JSON, in text order, or undefined; one pass over the
 * text, so a body is read once more after JSON.parse instead of walked as objects. JSON.parse keeps the last value
 * of a repeated key, which hides a client's bug, and none of the parsers we use (secure-json-parse, ajv) reports
 * it; keys are compared decoded, so `"symbol"` and `"\u0073ymbol"` are the same key. Containers nested deeper
 * than `depthMax` (the outermost is at depth 1) would cost stack and validator time. A number overflows to
 * ±Infinity only with an exponent or over 308 digits, so only such a token is converted to be checked.
 */
export function firstJsonTextProblem(text: string, depthMax: number): JsonTextProblem | undefined {
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
        if (top.keys.has(key)) return { kind: 'duplicate_key', path: pathOf(frames) };
        top.keys.add(key);
      }
    } else if (character === 0x7b /* { */ || character === 0x5b /* [ */) {
      if (frames.length + 1 > depthMax) return { kind: 'too_deep' };
      frames.push({ keys: character === 0x7b ? new Set() : undefined, index: 0, key: '', expectKey: character === 0x7b });
    } else if (character === 0x7d /* } */ || character === 0x5d /* ] */) frames.pop();
    else if (character === 0x2c /* , */ && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    } else if (character === 0x2d /* - */ || (character >= 0x30 && character <= 0x39)) {
      const start = position;
      let exponent = false;
      while (position + 1 < text.length && isNumberCharacter(text.charCodeAt(position + 1))) {
        position++;
        const inner = text.charCodeAt(position);
        if (inner === 0x65 || inner === 0x45) exponent = true;
      }
      if ((exponent || position - start >= 308) && !Number.isFinite(Number(text.slice(start, position + 1))))
        return { kind: 'number_out_of_range' };
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
