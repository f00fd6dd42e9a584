import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../src/domain/json-duplicate-keys';

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
