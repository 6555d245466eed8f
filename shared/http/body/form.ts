/**
 * `application/x-www-form-urlencoded` request bodies: what HTML forms post (the sign-in page,
 * auth.md §5.1) and what OAuth clients may send to `POST /oauth/token` (auth.md §6.3). Decoded
 * as the URL standard says (`+` is a space, `%XX` a byte, a malformed escape stays as written),
 * with two differences that keep the body what the client meant: the bytes must be UTF-8
 * (percent-escaped ones too), never replaced with U+FFFD, and the result is a plain object in
 * which every name is an own data property (free-form objects, conventions.md §15).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bodyTooLarge, MAX_BODY_BYTES } from '../body-limits';
import { InvalidSyntaxError } from '../errors';
import { rawBody } from '../request';
import { isMediaType } from './content-type';

/** The media type of form bodies. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Whether a Content-Type header names a form body (`application/x-www-form-urlencoded`, optional `charset=utf-8`). */
export function isFormContentType(header: string | undefined): boolean {
  return isMediaType(header, FORM_TYPE);
}

/**
 * Parses a form request body into its fields, every value a string; a repeated name keeps its
 * last value. The body needs `Content-Type: application/x-www-form-urlencoded` (charset, if
 * given, utf-8) and must be at most 1 MiB of UTF-8. Returns undefined for a bodiless request.
 * @example parseFormBody(event) // 'grant_type=refresh_token&refresh_token=rt.live.x' → { grant_type: 'refresh_token', refresh_token: 'rt.live.x' }
 */
export function parseFormBody(event: APIGatewayProxyEventV2): Record<string, string> | undefined {
  const bytes = rawBody(event);
  if (!bytes || bytes.length === 0) return undefined;
  if (!isFormContentType(event.headers?.['content-type'])) {
    throw new InvalidSyntaxError(`A request body must be sent with Content-Type: ${FORM_TYPE}.`, { header: 'Content-Type', expected: FORM_TYPE });
  }
  return parseFormBytes(bytes);
}

/** The fields of form bytes whose type is known: 1 MiB at most, UTF-8, names kept as own properties. */
export function parseFormBytes(bytes: Buffer): Record<string, string> {
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fields: Record<string, string> = {};
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x26, start); // &
    if (end === -1) end = bytes.length;
    if (end > start) {
      const pair = bytes.subarray(start, end);
      const equals = pair.indexOf(0x3d); // =
      const name = decodeComponent(equals === -1 ? pair : pair.subarray(0, equals), decoder);
      const value = equals === -1 ? '' : decodeComponent(pair.subarray(equals + 1), decoder);
      // A name such as `__proto__` or `constructor` is data: defined, never assigned through a setter.
      Object.defineProperty(fields, name, { value, writable: true, enumerable: true, configurable: true });
    }
    start = end + 1;
  }
  return fields;
}

/** One name or value: `+` as a space, `%XX` as its byte, then strict UTF-8. */
function decodeComponent(bytes: Buffer, decoder: InstanceType<typeof TextDecoder>): string {
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if (byte === 0x2b) {
      out[length++] = 0x20;
    } else if (byte === 0x25 && index + 2 < bytes.length && isHex(bytes[index + 1]!) && isHex(bytes[index + 2]!)) {
      out[length++] = (hexValue(bytes[index + 1]!) << 4) | hexValue(bytes[index + 2]!);
      index += 2;
    } else {
      out[length++] = byte;
    }
  }
  try {
    return decoder.decode(out.subarray(0, length));
  } catch {
    throw new InvalidSyntaxError('The request body is not valid UTF-8.');
  }
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x61 + 10;
}
