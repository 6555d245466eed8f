/** `application/x-www-form-urlencoded` request bodies (auth.md §5.1, §6.3): fields as strings, strict UTF-8, hostile names kept as data. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { isFormContentType, parseFormBody } from '../../../shared/http/body/form';

const event = (body: string | Buffer | undefined, contentType?: string): APIGatewayProxyEventV2 =>
  ({
    body: Buffer.isBuffer(body) ? body.toString('base64') : body,
    isBase64Encoded: Buffer.isBuffer(body),
    headers: contentType ? { 'content-type': contentType } : {},
  }) as unknown as APIGatewayProxyEventV2;

const FORM = 'application/x-www-form-urlencoded';

describe('form bodies', () => {
  it('accepts the form type with or without charset utf-8, any case', () => {
    expect(isFormContentType(FORM)).toBe(true);
    expect(isFormContentType('Application/X-WWW-Form-Urlencoded; charset=UTF-8')).toBe(true);
    expect(isFormContentType(`${FORM}; charset=iso-8859-1`)).toBe(false);
    expect(isFormContentType('application/json')).toBe(false);
    expect(isFormContentType(undefined)).toBe(false);
  });

  it('parses fields as strings: + is a space, %XX a byte, UTF-8 text, empty and bare names', () => {
    expect(parseFormBody(event('grant_type=refresh_token&refresh_token=rt.live.x%2By&note=a+b%20c&city=M%C3%BCnchen&empty=&bare', FORM))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt.live.x+y',
      note: 'a b c',
      city: 'München',
      empty: '',
      bare: '',
    });
    expect(parseFormBody(event('quantity=2', `${FORM}; charset=utf-8`))).toEqual({ quantity: '2' });
    // Raw UTF-8 bytes, empty pairs and a malformed escape (kept as written, as browsers do).
    expect(parseFormBody(event(Buffer.from('name=Zoë&&discount=100%&x=%zz&', 'utf8'), FORM))).toEqual({ name: 'Zoë', discount: '100%', x: '%zz' });
  });

  it('keeps the last value of a repeated name', () => {
    expect(parseFormBody(event('a=1&b=2&a=3', FORM))).toEqual({ a: '3', b: '2' });
  });

  it('is undefined for a bodiless request, whatever the type', () => {
    expect(parseFormBody(event(undefined))).toBeUndefined();
    expect(parseFormBody(event('', 'text/plain'))).toBeUndefined();
  });

  it('refuses a body without the form type (invalid_syntax, meta names the header and the type)', () => {
    const refusal = expect.objectContaining({ status: 400, code: 'invalid_syntax', meta: { header: 'Content-Type', expected: FORM } });
    expect(() => parseFormBody(event('a=1'))).toThrowError(refusal);
    expect(() => parseFormBody(event('a=1', 'text/plain'))).toThrowError(refusal);
    expect(() => parseFormBody(event('{"a":1}', 'application/json'))).toThrowError(refusal);
    expect(() => parseFormBody(event('a=1', `${FORM}; charset=latin1`))).toThrowError(refusal);
  });

  it('refuses bodies over 1 MiB with 422 account_limit_exceeded, as JSON bodies', () => {
    const big = `a=${'x'.repeat(1024 * 1024)}`;
    expect(() => parseFormBody(event(big, FORM))).toThrowError(
      expect.objectContaining({ status: 422, code: 'account_limit_exceeded', message: 'The request body is larger than 1 MiB.', meta: { limit_bytes: 1048576 } }),
    );
    expect(parseFormBody(event(`a=${'x'.repeat(1024 * 1024 - 2)}`, FORM))!.a).toHaveLength(1024 * 1024 - 2);
  });

  it('refuses bytes that are not UTF-8, sent raw or percent-escaped (invalid_syntax), never replacing them', () => {
    const invalid = expect.objectContaining({ status: 400, code: 'invalid_syntax', message: 'The request body is not valid UTF-8.' });
    expect(() => parseFormBody(event(Buffer.concat([Buffer.from('a='), Buffer.from([0xff, 0xfe])]), FORM))).toThrowError(invalid);
    expect(() => parseFormBody(event('a=%FF', FORM))).toThrowError(invalid);
    expect(() => parseFormBody(event('%C3=1', FORM))).toThrowError(invalid);
    // A surrogate encoded in UTF-8 is not UTF-8: no lone surrogate reaches the action.
    expect(() => parseFormBody(event('a=%ED%A0%80', FORM))).toThrowError(invalid);
  });

  it('stores __proto__, constructor and prototype as own data properties, touching no prototype', () => {
    const body = parseFormBody(event('__proto__=x&constructor=y&prototype=z&toString=w&__proto__[polluted]=1&hasOwnProperty=v', FORM))!;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor', 'prototype', 'toString', '__proto__[polluted]', 'hasOwnProperty']);
    for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
      expect(Object.getOwnPropertyDescriptor(body, name)).toMatchObject({ enumerable: true, writable: true });
    }
    expect(body.__proto__).toBe('x');
    expect(body.constructor).toBe('y');
    expect(JSON.parse(JSON.stringify(body))).toEqual(JSON.parse('{"__proto__":"x","constructor":"y","prototype":"z","toString":"w","__proto__[polluted]":"1","hasOwnProperty":"v"}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  });
});
