import { describe, expect, it } from 'vitest';
import { escapeStoredKeys, unescapeStoredKeys } from '../../shared/store/free-keys';

const parse = (json: string) => JSON.parse(json) as Record<string, unknown>;

describe('free-form keys at the storage boundary', () => {
  it('escapes __proto__ and constructor (and their escaped look-alikes) at any depth, and reverses exactly', () => {
    const input = parse('{"Item":{"pk":"a","meta":{"__proto__":{"constructor":"x"},"~constructor":1,"list":[{"~~__proto__":2}],"toString":"t"}}}');
    const stored = escapeStoredKeys(input);
    expect(JSON.stringify(stored)).toBe('{"Item":{"pk":"a","meta":{"~__proto__":{"~constructor":"x"},"~~constructor":1,"list":[{"~~~__proto__":2}],"toString":"t"}}}');
    const back = unescapeStoredKeys(stored);
    expect(JSON.stringify(back)).toBe(JSON.stringify(input));
    const meta = (back.Item as Record<string, Record<string, unknown>>).meta!;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.hasOwn(meta, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(meta.__proto__)).toBe(Object.prototype);
  });

  it('returns the very same objects when no key needs rewriting', () => {
    const input = { TableName: 't', Item: { pk: 'a', meta: { plain: [1, { c: 2 }] } }, Key: new Uint8Array([1]) };
    expect(escapeStoredKeys(input)).toBe(input);
    expect(unescapeStoredKeys(input)).toBe(input);
  });

  it('copies only the path to a change and keeps key order', () => {
    const untouched = { deep: true };
    const input = parse('{"a":1,"b":{"constructor":2},"c":3}');
    input.d = untouched;
    const stored = escapeStoredKeys(input);
    expect(Object.keys(stored)).toEqual(['a', 'b', 'c', 'd']);
    expect(stored.d).toBe(untouched);
    expect(input.b).toEqual(parse('{"constructor":2}'));
  });

  it('leaves class instances and bare look-alikes alone on the way out', () => {
    const set = new Set(['__proto__']);
    expect(unescapeStoredKeys({ s: set }).s).toBe(set);
    expect(JSON.stringify(unescapeStoredKeys(parse('{"constructor":1}')))).toBe('{"constructor":1}');
  });
});
