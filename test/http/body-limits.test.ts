/** The body cap of a request (conventions.md §4, §20): 1 MiB for JSON, the upload cap for multipart/form-data. */
import { describe, expect, it } from 'vitest';
import { bodyTooLarge, MAX_BODY_BYTES, requestBodyLimit } from '../../shared/http/body-limits';
import { MAX_UPLOAD_BODY_BYTES } from '../../shared/modules/images/limits';

const upload = { body: 'multipart', multipart: { maxBytes: MAX_UPLOAD_BODY_BYTES } } as const;
const limit = (contentType: string | undefined, route?: typeof upload) => requestBodyLimit({ contentType, route });

describe('requestBodyLimit', () => {
  it('caps JSON, other and missing content types at the 1 MiB that parseJsonBody applies', () => {
    expect(MAX_BODY_BYTES).toBe(1024 * 1024);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain', 'multipart/mixed; boundary=x', undefined]) {
      expect(limit(type)).toBe(MAX_BODY_BYTES);
      expect(limit(type, upload)).toBe(MAX_BODY_BYTES);
    }
    // A multipart body to a route that takes no uploads gets no more room than JSON.
    expect(limit('multipart/form-data; boundary=abc')).toBe(MAX_BODY_BYTES);
    for (const body of ['json', 'form', 'form-or-json', 'raw'] as const) {
      expect(requestBodyLimit({ contentType: 'multipart/form-data; boundary=abc', route: { body } })).toBe(MAX_BODY_BYTES);
    }
  });

  it('gives multipart/form-data (any case, with parameters) to an upload route its cap: a 10 MB file and its framing', () => {
        expect(MAX_UPLOAD_BODY_BYTES).toBeGreaterThan(10_000_000);
    for (const type of ['multipart/form-data; boundary=abc', 'Multipart/Form-Data;boundary="a b"', ' multipart/form-data ']) {
      expect(limit(type, upload)).toBe(MAX_UPLOAD_BODY_BYTES);
    }
  });
});

describe('bodyTooLarge', () => {
  it('is 422 account_limit_exceeded naming the cap, as parseJsonBody words it', () => {
    expect(bodyTooLarge(MAX_BODY_BYTES)).toMatchObject({ status: 422, code: 'account_limit_exceeded', message: 'The request body is larger than 1 MiB.', meta: { limit_bytes: 1048576 } });
    expect(bodyTooLarge(MAX_UPLOAD_BODY_BYTES).message).toBe('The request body is larger than 11 MiB.');
    expect(bodyTooLarge(6_000_000).message).toBe('The request body is larger than 6000000 bytes.');
  });
});
