/** JSON request bodies (conventions.md §4, §20): the default body kind of a route. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { isJsonContentType, MAX_BODY_DEPTH, parseJsonBody } from '../../../shared/http/body/json';

const event = (body: string | undefined, contentType?: string, isBase64Encoded = false): APIGatewayProxyEventV2 =>
  ({ body, isBase64Encoded, headers: contentType ? { 'content-type': contentType } : {} }) as unknown as APIGatewayProxyEventV2;

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

  it('refuses bytes that are not UTF-8 (invalid_syntax), found before parsing', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(() => parseJsonBody(event(bytes.toString('base64'), 'application/json', true))).toThrowError(
      expect.objectContaining({ code: 'invalid_syntax', status: 400, message: 'The request body is not valid UTF-8.' }),
    );
  });

  it('refuses nesting deeper than the limit (invalid_input, too_deep) and lone surrogates (invalid_input naming the property)', () => {
    const deep = `${'{"a":'.repeat(MAX_BODY_DEPTH + 1)}1${'}'.repeat(MAX_BODY_DEPTH + 1)}`;
    expect(() => parseJsonBody(event(deep, 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_input', meta: { reason: 'too_deep', limit: MAX_BODY_DEPTH } }));
    expect(() => parseJsonBody(event('{"name":"\\ud800"}', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_input', meta: { property: 'name', reason: 'invalid' } }));
  });

  it('keeps hostile keys as own data properties (free-form objects)', () => {
    const body = parseJsonBody(event('{"__proto__":{"polluted":true},"constructor":"c"}', 'application/json'))!;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
