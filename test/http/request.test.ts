import { describe, expect, it } from 'vitest';
import { booleanParameter, parseQuery } from '../../shared/http/request';
import { canonicalJson, checkIdempotencyKey } from '../../shared/http/idempotency';

describe('query strings', () => {
  it('keeps the last occurrence of a repeated parameter', () => {
    expect(parseQuery('limit=5&limit=7&q=a%20b')).toEqual({ limit: '7', q: 'a b' });
  });

  it('reads booleans as true/false/1/0, empty as absent, others as 400', () => {
    expect(booleanParameter({ t: 'TRUE' }, 't')).toBe(true);
    expect(booleanParameter({ t: '0' }, 't')).toBe(false);
    expect(booleanParameter({ t: '' }, 't')).toBeUndefined();
    expect(() => booleanParameter({ t: 'yes' }, 't')).toThrowError(expect.objectContaining({ code: 'invalid_input', meta: { parameter: 't', reason: 'invalid' } }));
  });
});

describe('idempotency keys (conventions.md 19)', () => {
  it('accepts 1-255 printable ASCII characters only', () => {
    expect(checkIdempotencyKey('a')).toBe('a');
    expect(checkIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é', ' lead']) {
      expect(() => checkIdempotencyKey(bad)).toThrowError(expect.objectContaining({ meta: expect.objectContaining({ parameter: 'Idempotency-Key' }) }));
    }
  });

  it('compares bodies as canonical JSON', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe(canonicalJson({ a: [{ c: 2, d: 1 }], b: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });
});
