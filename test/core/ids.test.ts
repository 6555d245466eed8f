/**
 * Generated ids and token bodies (shared/core/ids.ts): the alphabet and length, no repeats over many
 * draws (the random bytes come from a pool and must never be handed out twice), and no visible
 * bias in the characters.
 */
import { describe, expect, it } from 'vitest';
import { derivedId, ID_ALPHABET, newId, randomBase62, randomString } from '../../shared/core/ids';

describe('ids', () => {
  it('draws 12 characters of the id alphabet, never the same id twice across many pool refills', () => {
    const ids = Array.from({ length: 30_000 }, newId);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character of the alphabet about equally', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const character of newId()) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe(ID_ALPHABET);
    const expected = (20_000 * 12) / ID_ALPHABET.length;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.1);
  });

  it('makes token bodies of base62 and strings longer than the pool', () => {
    expect(randomBase62(40)).toMatch(/^[0-9A-Za-z]{40}$/);
    const long = randomString(10_000, ID_ALPHABET);
    expect(long).toHaveLength(10_000);
    expect(new Set(long).size).toBe(ID_ALPHABET.length);
  });

  it('derives the same id from the same seed', () => {
    expect(derivedId('order:1')).toBe(derivedId('order:1'));
    expect(derivedId('order:1')).not.toBe(derivedId('order:2'));
  });
});
