/** Raw request bodies: the bytes exactly as sent and their type (a webhook whose signature covers the bytes). */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseRawBody, rawFingerprint } from '../../../shared/http/body/raw';

const event = (body: string | Buffer | undefined, contentType?: string): APIGatewayProxyEventV2 =>
  ({
    body: Buffer.isBuffer(body) ? body.toString('base64') : body,
    isBase64Encoded: Buffer.isBuffer(body),
    headers: contentType ? { 'content-type': contentType } : {},
  }) as unknown as APIGatewayProxyEventV2;

describe('raw bodies', () => {
  it('keeps the bytes untouched, with the type as sent (any type, or none)', () => {
    expect(parseRawBody(event('{"id": 1,  "x":"y"}', 'application/json'))).toEqual({ bytes: Buffer.from('{"id": 1,  "x":"y"}'), contentType: 'application/json' });
    expect(parseRawBody(event('plain text', undefined))).toEqual({ bytes: Buffer.from('plain text'), contentType: undefined });
    expect(parseRawBody(event(undefined, 'text/plain'))).toBeUndefined();
  });

  it('does not judge the bytes: invalid UTF-8 arrives as sent', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    expect(parseRawBody(event(bytes, 'application/octet-stream'))!.bytes.equals(bytes)).toBe(true);
  });

  it('refuses bodies over 1 MiB with 422 account_limit_exceeded, as JSON bodies', () => {
    expect(() => parseRawBody(event(Buffer.alloc(1024 * 1024 + 1), 'application/octet-stream'))).toThrowError(
      expect.objectContaining({ status: 422, code: 'account_limit_exceeded', message: 'The request body is larger than 1 MiB.', meta: { limit_bytes: 1048576 } }),
    );
    expect(parseRawBody(event(Buffer.alloc(1024 * 1024), 'application/octet-stream'))!.bytes).toHaveLength(1024 * 1024);
  });

  it('fingerprints a body by its type and bytes for Idempotency-Key comparison', () => {
    const one = rawFingerprint(parseRawBody(event('a', 'text/plain')));
    expect(one).toEqual(rawFingerprint(parseRawBody(event('a', 'text/plain'))));
    expect(one).not.toEqual(rawFingerprint(parseRawBody(event('b', 'text/plain'))));
    expect(one).not.toEqual(rawFingerprint(parseRawBody(event('a', 'application/json'))));
    expect(rawFingerprint(undefined)).toBeUndefined();
  });
});
