/** `multipart/form-data` uploads (conventions.md §4): one file read from a form, refusals enveloped, and an upload's identity for Idempotency-Key. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readUpload } from '../../../shared/http/body/multipart';
import { uploadFingerprint } from '../../../shared/http/upload-fingerprint';

/** A multipart body with `parts`, framed by `boundary`. */
function form(boundary: string, parts: Array<{ name: string; filename?: string; type?: string; data: Buffer | string }>, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const headers = (boundary: string) => ({ 'content-type': `multipart/form-data; boundary=${boundary}` });
const options = { field: 'file', maxFileBytes: 1000 };

async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string; meta: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { status: number; code: string; meta: unknown };
  }
  throw new Error('expected a failure');
}

describe('readUpload', () => {
  it('reads the file of the form field, its name and type, and the text fields beside it', async () => {
    const body = form('XyZ', [
      { name: 'note', data: 'hello' },
      { name: 'file', filename: 'photo.jpg', type: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 1, 2, 3]) },
      { name: 'label', data: '1.4.2' },
    ]);
    const file = await readUpload(headers('XyZ'), body, options);
    expect(file).toEqual({ filename: 'photo.jpg', contentType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 1, 2, 3]), fields: { note: 'hello', label: '1.4.2' } });
  });

  it('answers 400 invalid_input (too_long) for a text field over 64 KB, naming it', async () => {
    const body = form('b', [{ name: 'comments', data: 'x'.repeat(70 * 1024) }, { name: 'file', filename: 'a.zip', data: 'x' }]);
    expect(await failure(readUpload(headers('b'), body, options))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'comments', reason: 'too_long' } });
  });

  it('names what the file is in the message for a missing file', async () => {
    const error = (await failure(readUpload({}, undefined, { ...options, noun: 'zip package' }))) as unknown as { message: string };
    expect(error.message).toMatch(/^Send the zip package as a file in the form field file/);
  });

  it('keeps a UTF-8 file name', async () => {
    const file = await readUpload(headers('b'), form('b', [{ name: 'file', filename: 'café ☕.png', data: 'x' }]), options);
    expect(file.filename).toBe('café ☕.png');
  });

  it('answers 400 invalid_syntax for a body that is not multipart/form-data', async () => {
    const error = await failure(readUpload({ 'content-type': 'application/json' }, Buffer.from('{}'), options));
    expect(error).toMatchObject({ status: 400, code: 'invalid_syntax', meta: { header: 'Content-Type', expected: 'multipart/form-data' } });
    expect(await failure(readUpload({}, Buffer.from('raw'), options))).toMatchObject({ code: 'invalid_syntax' });
  });

  it('answers 400 invalid_input (required) without a file in the field, and for a bodiless request', async () => {
    expect(await failure(readUpload(headers('b'), form('b', [{ name: 'other', filename: 'a.png', data: 'x' }]), options))).toMatchObject({
      status: 400,
      code: 'invalid_input',
      meta: { property: 'file', reason: 'required' },
    });
    expect(await failure(readUpload({}, undefined, options))).toMatchObject({ code: 'invalid_input', meta: { property: 'file', reason: 'required' } });
  });

  it('answers 400 invalid_input when the field is a text value, not a file', async () => {
    expect(await failure(readUpload(headers('b'), form('b', [{ name: 'file', data: 'not a file' }]), options))).toMatchObject({
      code: 'invalid_input',
      meta: { property: 'file', reason: 'invalid' },
    });
  });

  it('answers 422 account_limit_exceeded for a file over the limit', async () => {
    const error = await failure(readUpload(headers('b'), form('b', [{ name: 'file', filename: 'big.png', data: Buffer.alloc(5000) }]), options));
    expect(error).toMatchObject({ status: 422, code: 'account_limit_exceeded', meta: { property: 'file', limit_bytes: 1000 } });
  });

  it('stops parsing once a large file passes the limit', async () => {
    const big = form('b', [{ name: 'file', filename: 'big.png', data: Buffer.alloc(50 * 1024 * 1024) }]);
    // Counts the bytes handed to the parser (the body is fed in slices), not the time it took.
    const slice = big.subarray.bind(big);
    let fed = 0;
    big.subarray = ((start?: number, end?: number) => {
      const part = slice(start, end);
      fed += part.length;
      return part;
    }) as typeof big.subarray;
    const error = await failure(readUpload(headers('b'), big, { field: 'file', maxFileBytes: 1024 * 1024 }));
    expect(error).toMatchObject({ status: 422, code: 'account_limit_exceeded' });
    expect(fed).toBeLessThan(2 * 1024 * 1024);
  });

  it('answers 400 invalid_syntax for a form cut short or without a boundary', async () => {
    expect(await failure(readUpload(headers('b'), form('b', [{ name: 'file', filename: 'a.png', data: 'xyz' }], false), options))).toMatchObject({ code: 'invalid_syntax' });
    expect(await failure(readUpload({ 'content-type': 'multipart/form-data' }, Buffer.from('--b\r\n'), options))).toMatchObject({ code: 'invalid_syntax' });
  });
});

describe('uploadFingerprint', () => {
  const event = (boundary: string, body: Buffer) =>
    ({ headers: headers(boundary), body: body.toString('base64'), isBase64Encoded: true }) as unknown as APIGatewayProxyEventV2;
  const parts = (data: string) => [{ name: 'file', filename: 'a.png', type: 'image/png', data }];

  it('is the same for the same upload framed by another boundary, and differs for other content', () => {
    const first = uploadFingerprint(event('----A1', form('----A1', parts('same bytes'))));
    const retry = uploadFingerprint(event('----B22', form('----B22', parts('same bytes'))));
    const other = uploadFingerprint(event('----A1', form('----A1', parts('other bytes'))));
    expect(first).toBeDefined();
    expect(retry).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('is undefined for JSON and bodiless requests', () => {
    expect(uploadFingerprint({ headers: { 'content-type': 'application/json' }, body: '{}' } as unknown as APIGatewayProxyEventV2)).toBeUndefined();
    expect(uploadFingerprint({ headers: headers('b') } as unknown as APIGatewayProxyEventV2)).toBeUndefined();
  });
});
