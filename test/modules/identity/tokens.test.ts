import { describe, expect, it } from 'vitest';
import { bearerToken, hashToken, newToken, parseToken, redactToken } from '../../../shared/core/access/tokens';

describe('token strings (auth.md 1.1, 1.2)', () => {
  it('generates <kind>.<mode>.<40 base62>', () => {
    const token = newToken('sk', 'test');
    expect(token).toMatch(/^sk\.test\.[0-9A-Za-z]{40}$/);
    expect(newToken('sk', 'test')).not.toBe(token);
  });

  it('parses kind and mode and rejects malformed tokens', () => {
    expect(parseToken(newToken('lt', 'live'))).toMatchObject({ kind: 'limited', mode: 'live' });
    expect(parseToken('sk.live.short')).toBeUndefined();
    expect(parseToken('xx.live.' + 'a'.repeat(40))).toBeUndefined();
    expect(parseToken('sk.prod.' + 'a'.repeat(40))).toBeUndefined();
    expect(parseToken('sk.live.' + 'a'.repeat(39) + '!')).toBeUndefined();
  });

  it('hashes to lowercase hex SHA-256', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('redacts to kind, mode and the last four characters', () => {
    expect(redactToken('sk', 'test', 'BwGZ')).toBe('sk.test...BwGZ');
  });

  it('reads the bearer scheme case-insensitively', () => {
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer  abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
