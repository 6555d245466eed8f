/**
 * `multipart/form-data` request bodies (conventions.md §4: file uploads are the exception to
 * JSON), parsed with busboy from the API Gateway event's body. Routes that take one declare
 * `body: 'multipart'` in the route table; the pipeline then leaves the body alone
 * (`ApiContext.rawBody`) and the action calls `readUpload`, so busboy enters only the bundles of
 * the families that take uploads.
 */
import busboy from 'busboy';
import { AccountLimitExceededError, InvalidInputError, InvalidSyntaxError } from '../errors';
import { mediaType } from './content-type';

/** One uploaded file: the part's declared name and type, and its bytes. */
export interface UploadedFile {
  /** The file name the client sent, as sent (busboy already drops any directory part). */
  filename: string;
  /** The part's `Content-Type` (`application/octet-stream` when it had none). */
  contentType: string;
  data: Buffer;
}

/** The file of a form and its text fields (the last value of a repeated name wins). */
export interface UploadedForm extends UploadedFile {
  fields: Record<string, string>;
}

/** What `readUpload` needs to know about the form. */
export interface UploadOptions {
  /** The form field that carries the file (`file`). */
  field: string;
  /** Largest file; a larger one answers 422 account_limit_exceeded and parsing stops there. */
  maxFileBytes: number;
  /** What the file is, in the "required" message (`image`, `zip package`); default `file`. */
  noun?: string;
}

/** Bytes handed to the parser at a time, so parsing stops soon after a file passes the limit. */
const CHUNK_BYTES = 256 * 1024;


/**
 * Reads the one file of a `multipart/form-data` request. Errors: a body of another type is
 * 400 invalid_syntax (header `Content-Type`); a malformed body 400 invalid_syntax; no file in
 * `field` 400 invalid_input (property `field`, reason `required`); a file larger than
 * `maxFileBytes` 422 account_limit_exceeded, found without parsing the rest of the body; a
 * text field longer than 64 KB 400 invalid_input (its name, reason `too_long`).
 */
export async function readUpload(headers: Record<string, string | undefined>, body: Buffer | undefined, options: UploadOptions): Promise<UploadedForm> {
  const missing = () =>
    new InvalidInputError(`Send the ${options.noun ?? 'file'} as a file in the form field ${options.field} (multipart/form-data).`, { property: options.field, reason: 'required' });
  if (!body?.length) throw missing();
  const form = await readForm(headers, body, options);
  if (!form.file) throw missing();
  return { ...form.file, fields: form.fields };
}

/**
 * Reads a `multipart/form-data` request whose file is optional (an update that may or may not
 * replace the code): its text fields, and the file in `options.field` when one was sent. The
 * errors are `readUpload`'s, but for the missing file.
 */
export async function readForm(headers: Record<string, string | undefined>, body: Buffer | undefined, options: UploadOptions): Promise<{ file?: UploadedFile; fields: Record<string, string> }> {
  const contentType = headers['content-type'];
  if (!body?.length) return { fields: {} };
  if (mediaType(contentType) !== 'multipart/form-data') {
    throw new InvalidSyntaxError('An upload must be sent with Content-Type: multipart/form-data.', { header: 'Content-Type', expected: 'multipart/form-data' });
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: { fileSize: options.maxFileBytes, files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60, headerPairs: 50 },
    });
  } catch (error) {
    throw new InvalidSyntaxError(`The multipart body cannot be read: ${(error as Error).message}.`, { header: 'Content-Type' });
  }
  return new Promise<{ file?: UploadedFile; fields: Record<string, string> }>((resolve, reject) => {
    let settled = false;
    let found: UploadedFile | undefined;
    let wrongKind = false;
    const fields: Record<string, string> = {};
    const finish = (outcome: { file?: UploadedFile; fields: Record<string, string> } | Error) => {
      if (settled) return;
      settled = true;
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    parser.on('file', (name, stream, info) => {
      if (name !== options.field || found) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      // Stopping early cuts the stream; the outcome is already known then.
      stream.on('error', () => undefined);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        finish(
          new AccountLimitExceededError(`The file is larger than ${options.maxFileBytes / (1024 * 1024)} MB.`, {
            property: options.field,
            reason: 'too_large',
            limit_bytes: options.maxFileBytes,
          }),
        ),
      );
      stream.on('end', () => {
        if (!settled) found = { filename: info.filename ?? '', contentType: info.mimeType || 'application/octet-stream', data: Buffer.concat(chunks) };
      });
    });
    parser.on('field', (name, value, info) => {
      if (name === options.field) wrongKind = true;
      else if (info.valueTruncated) finish(new InvalidInputError(`The form field ${name} is too long.`, { property: name, reason: 'too_long' }));
      // A field named `__proto__` is data like any other (conventions.md §15): defined, never assigned.
      else Object.defineProperty(fields, name, { value, writable: true, enumerable: true, configurable: true });
    });
    parser.on('error', (error: Error) => finish(new InvalidSyntaxError(`The multipart body cannot be read: ${error.message}.`)));
    parser.on('close', () => {
      if (found) return finish({ file: found, fields });
      if (wrongKind) {
        return finish(new InvalidInputError(`The form field ${options.field} must be a file, not a text value.`, { property: options.field, reason: 'invalid' }));
      }
      finish({ fields });
    });
    // Feed the body in slices and stop once the outcome is known (an over-size file). busboy
    // reports the file's limit on a later turn of the event loop, so each slice waits for one.
    void (async () => {
      for (let offset = 0; offset < body.length && !settled; offset += CHUNK_BYTES) {
        parser.write(body.subarray(offset, offset + CHUNK_BYTES));
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (!settled) parser.end();
      else parser.destroy();
    })();
  });
}
