import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey, firstJsonTextProblem } from '../src/domain/json-duplicate-keys';

describe('firstDuplicateKey', () => {
  it('finds no duplicate in any JSON.stringify output (keys of one object are distinct there)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => firstDuplicateKey(JSON.stringify(value)) === undefined));
  });

  it('finds a key given twice at any depth, compared decoded, and names its path', () => {
    expect(firstDuplicateKey('{"a":1,"a":2}')).toBe('a');
    expect(firstDuplicateKey('{"a":{"b":[1,{"c":1,"d":{},"c":2}]}}')).toBe('a.b[1].c');
    expect(firstDuplicateKey('[{}, [], {"x":"\\"","x":0}]')).toBe('[2].x');
    expect(firstDuplicateKey('{"é":1,"\\u00e9":2}')).toBe('é');
    expect(firstDuplicateKey(' { "k" : { } , "k" : null } ')).toBe('k');
  });

  it('reads keys and string values apart: text that looks like a key is not one', () => {
    expect(firstDuplicateKey('{"a":"a","b":"\\"a\\":1,"}')).toBeUndefined();
    expect(firstDuplicateKey('{"a":{"a":{"a":1}}}')).toBeUndefined();
    expect(firstDuplicateKey('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(firstDuplicateKey('{"a\\\\":1,"a":2}')).toBeUndefined();
  });

  it('finds a duplicate inserted into any generated object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, extra) => {
        const key = Object.keys(object)[0]!;
        const text = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(extra)}}`;
        return firstDuplicateKey(text) === key;
      }),
    );
  });
});

/** Nesting depth of a parsed value: containers count, the outermost at 1; scalars add nothing. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf));
}

describe('firstJsonTextProblem', () => {
  it('finds a too deep text exactly when its parsed value nests deeper than allowed', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 6 }), (value, depthMax) => {
        const problem = firstJsonTextProblem(JSON.stringify(value), depthMax);
        return (problem?.kind === 'too_deep') === depthOf(value) > depthMax;
      }),
    );
    expect(firstJsonTextProblem('[[[]]]', 3)).toBeUndefined();
    expect(firstJsonTextProblem('[[[]]]', 2)).toEqual({ kind: 'too_deep' });
    expect(firstJsonTextProblem('{"a":"[[[[["}', 1)).toBeUndefined();
  });

  it('finds a number JSON.parse reads as Infinity, and only such a number', () => {
    for (const text of ['1e309', '{"a":[-1E400]}', `{"a":${'9'.repeat(400)}}`, '[1,2e+999]'])
      expect(firstJsonTextProblem(text, 10), text).toEqual({ kind: 'number_out_of_range' });
    for (const text of ['1e308', '{"a":-1.5e-400}', `{"a":${'9'.repeat(300)}}`, '{"1e999":"1e999"}', '[true,false,null,0.5e1]'])
      expect(firstJsonTextProblem(text, 10), text).toBeUndefined();
    fc.assert(fc.property(fc.jsonValue(), (value) => firstJsonTextProblem(JSON.stringify(value), 1_000) === undefined));
  });
});
