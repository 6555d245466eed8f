import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { booleanParameter, isJsonContentType, parseJsonBody, parseQuery } from '../../shared/http/request';
import { canonicalJson, checkIdempotencyKey } from '../../shared/http/idempotency';

const event = (body: string | undefined, contentType?: string): APIGatewayProxyEventV2 =>
  ({ body, isBase64Encoded: false, headers: contentType ? { 'content-type': contentType } : {} }) as unknown as APIGatewayProxyEventV2;

describe('JSON bodies (conventions.md 4)', () => {
  it('accepts application/json with or without charset utf-8, any case', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=UTF-8')).toBe(true);
    expect(isJsonContentType('application/json; charset=latin1')).toBe(false);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
  });

  it('parses an object body', () => {
    expect(parseJsonBody(event('{"a":1}', 'application/json'))).toEqual({ a: 1 });
    expect(parseJsonBody(event(undefined))).toBeUndefined();
    expect(parseJsonBody(event(''))).toBeUndefined();
  });

  it('refuses a body without the JSON content type (invalid_syntax, meta names the header)', () => {
    expect(() => parseJsonBody(event('{}'))).toThrowError(
      expect.objectContaining({ code: 'invalid_syntax', meta: { header: 'Content-Type', expected: 'application/json' } }),
    );
    expect(() => parseJsonBody(event('{}', 'text/plain'))).toThrowError(expect.objectContaining({ code: 'invalid_syntax' }));
  });

  it('refuses invalid JSON (invalid_syntax) and non-objects (invalid_input)', () => {
    expect(() => parseJsonBody(event('{"a":', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_syntax', status: 400 }));
    expect(() => parseJsonBody(event('[1]', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => parseJsonBody(event('"x"', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('refuses bodies over 1 MiB with 422 account_limit_exceeded', () => {
    const big = JSON.stringify({ a: 'x'.repeat(1024 * 1024) });
    expect(() => parseJsonBody(event(big, 'application/json'))).toThrowError(expect.objectContaining({ code: 'account_limit_exceeded', status: 422 }));
  });
});

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
