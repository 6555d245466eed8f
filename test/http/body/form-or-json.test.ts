/** Bodies that may be JSON or a form (`POST /oauth/token`, auth.md §6.3): the type picks the parser. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseFormOrJsonBody } from '../../../shared/http/body/form-or-json';

const event = (body: string | Buffer | undefined, contentType?: string): APIGatewayProxyEventV2 =>
  ({
    body: Buffer.isBuffer(body) ? body.toString('base64') : body,
    isBase64Encoded: Buffer.isBuffer(body),
    headers: contentType ? { 'content-type': contentType } : {},
  }) as unknown as APIGatewayProxyEventV2;

const EXPECTED = 'application/json or application/x-www-form-urlencoded';

describe('form-or-JSON bodies', () => {
  it('reads JSON as JSON and a form as a form, to the same object', () => {
    expect(parseFormOrJsonBody(event('{"grant_type":"refresh_token","n":2}', 'application/json; charset=utf-8'))).toEqual({ grant_type: 'refresh_token', n: 2 });
    expect(parseFormOrJsonBody(event('grant_type=refresh_token&n=2', 'application/x-www-form-urlencoded'))).toEqual({ grant_type: 'refresh_token', n: '2' });
    expect(parseFormOrJsonBody(event(undefined))).toBeUndefined();
  });

  it('refuses another or a missing type (invalid_syntax, expected names both)', () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', undefined, 'application/json; charset=latin1']) {
      expect(() => parseFormOrJsonBody(event('a=1', type))).toThrowError(
        expect.objectContaining({ status: 400, code: 'invalid_syntax', meta: { header: 'Content-Type', expected: EXPECTED } }),
      );
    }
  });

  it('keeps each kind’s own rules: malformed JSON, a JSON array, over 1 MiB, bad UTF-8', () => {
    expect(() => parseFormOrJsonBody(event('{"a":', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_syntax' }));
    expect(() => parseFormOrJsonBody(event('[1]', 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_input' }));
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      expect(() => parseFormOrJsonBody(event(`a=${'x'.repeat(1024 * 1024)}`, type))).toThrowError(expect.objectContaining({ status: 422, code: 'account_limit_exceeded' }));
    }
    expect(() => parseFormOrJsonBody(event('a=%FF', 'application/x-www-form-urlencoded'))).toThrowError(expect.objectContaining({ code: 'invalid_syntax' }));
    expect(() => parseFormOrJsonBody(event(Buffer.from([0x7b, 0xff, 0x7d]), 'application/json'))).toThrowError(expect.objectContaining({ code: 'invalid_syntax' }));
  });

  it('keeps hostile form names as own data properties', () => {
    const body = parseFormOrJsonBody(event('__proto__=x&constructor=y', 'application/x-www-form-urlencoded'))!;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor']);
  });
});
