/**
 * The DynamoDB JSON protocol as the local emulator speaks it: in-memory replies, the AWS
 * error bodies the SDK turns into typed exceptions, and calls into dynalite's own request
 * listener without a socket (so the emulator reuses dynalite's validation, condition and
 * update evaluation instead of re-implementing them).
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { directOperations, type DirectDynalite, type DirectOutcome } from './direct';

/** An item or key as it travels on the wire: attribute name to `{ S: ... }`-style value. */
export type WireItem = Record<string, unknown>;

/** One complete HTTP answer, held in memory until it is written to the client. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A parsed error reply: the exception's short name (`ConditionalCheckFailedException`) and body. */
export interface WireError {
  type: string;
  message: string;
  body: Record<string, unknown>;
  reply: Reply;
}

/** The outcome of an internal call into dynalite. */
export type CallResult<T> = { ok: true; data: T } | ({ ok: false } & WireError);

/** `__type` prefixes AWS uses; the SDK only reads the part after `#`. */
export const errorTypes = {
  validation: 'com.amazon.coral.validate#ValidationException',
  serialization: 'com.amazon.coral.service#SerializationException',
  internal: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  unavailable: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailableException',
  transactionCanceled: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
  idempotentParameterMismatch: 'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException',
} as const;

/** The `X-Amz-Target` prefix of every current DynamoDB operation. */
export const targetPrefix = 'DynamoDB_20120810.';

const jsonContentType = 'application/x-amz-json-1.0';

/** A JSON reply with the headers DynamoDB sends (request id, CRC32 of the body). */
export function jsonReply(status: number, payload: unknown, requestId = newRequestId()): Reply {
  const body = JSON.stringify(payload);
  return {
    status,
    headers: {
      'x-amzn-RequestId': requestId,
      'x-amz-crc32': String(crc32(body)),
      'Content-Type': jsonContentType,
      'Content-Length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

/** An AWS error reply, e.g. `errorReply(errorTypes.validation, 'bad key')`. */
export function errorReply(type: string, message: string, status = 400): Reply {
  return jsonReply(status, { __type: type, message });
}

/** A `ValidationException` reply with AWS's message. */
export function validationError(message: string): Reply {
  return errorReply(errorTypes.validation, message);
}

/** AWS's message for a required member that is missing, e.g. `transactItems.1.member.put.item`. */
export function missingMember(path: string): Reply {
  return validationError(
    `1 validation error detected: Value null at '${path}' failed to satisfy constraint: Member must not be null`,
  );
}

/** Parses an error reply (from dynalite or built here) into its short type and message. */
export function parseError(reply: Reply): WireError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(reply.body);
    if (isRecord(parsed)) body = parsed;
  } catch {
    // Not JSON (dynalite's 404 for unknown content types): fall through with an empty body.
  }
  const fullType = typeof body.__type === 'string' ? body.__type : '';
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : '';
  return { type: fullType.slice(fullType.indexOf('#') + 1), message, body, reply };
}

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A random start per process, then a counter: request ids need to be unique, not secret. */
const REQUEST_ID_PREFIX = randomBytes(15).toString('base64').toUpperCase().replace(/[+/]/g, '0');
let requestCount = 0;

function newRequestId(): string {
  // Same length and alphabet as DynamoDB's request ids (52 upper-case characters).
  return REQUEST_ID_PREFIX + (++requestCount).toString(36).toUpperCase().padStart(32, '0');
}

/** The listener dynalite installs on its HTTP server (request, response). */
export type DynaliteListener = (request: CapturedRequest, response: CapturedResponse) => void;

/** A request fed to dynalite in memory: the shape of `IncomingMessage` dynalite reads. */
export class CapturedRequest extends EventEmitter {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: IncomingHttpHeaders,
  ) {
    super();
  }
}

/** A response dynalite writes in memory: the shape of `ServerResponse` dynalite uses. */
export class CapturedResponse {
  statusCode = 200;
  contentType: string | undefined;
  private readonly headers: Record<string, string> = {};

  constructor(private readonly done: (reply: Reply) => void) {}

  /** Records a header, as `ServerResponse.setHeader` would. */
  setHeader(name: string, value: string | number): void {
    this.headers[name] = String(value);
  }

  /** Completes the response. */
  end(body?: string): void {
    this.done({ status: this.statusCode, headers: this.headers, body: body ?? '' });
  }
}

/** dynalite only checks that this header is present; it never verifies signatures. */
export const internalAuthorization =
  'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';

/**
 * The operation of a request dynalite's listener would accept as it is (a signed-looking JSON
 * POST to `/`, as the SDK sends) when it is one called directly; undefined for anything else,
 * which the listener answers, errors included.
 */
function directOperationOf(method: string, url: string, headers: IncomingHttpHeaders): string | undefined {
  if (method !== 'POST' || url !== '/' || headers.origin !== undefined || headers['content-type'] !== jsonContentType) return undefined;
  const target = headers['x-amz-target'];
  if (typeof target !== 'string' || !target.startsWith(targetPrefix)) return undefined;
  const operation = target.slice(targetPrefix.length);
  if (!directOperations.has(operation) || (!headers['x-amz-date'] && !headers.date)) return undefined;
  // dynalite's own check of the Authorization header (it verifies no signature).
  const authorization = headers.authorization;
  if (typeof authorization !== 'string' || !authorization.trim().startsWith('AWS4-')) return undefined;
  const present = new Set(authorization.split(/,| /).slice(1).filter((part) => /^[^=]+=[^=]/.test(part.trim())).map((part) => part.trim().split('=')[0]));
  return present.has('Credential') && present.has('Signature') && present.has('SignedHeaders') ? operation : undefined;
}

/** dynalite's answer to a direct call, as its listener would have written it. */
function replyOf(outcome: DirectOutcome): Reply {
  return outcome.ok ? jsonReply(200, outcome.data) : jsonReply(outcome.status, outcome.body);
}

/**
 * Calls into dynalite in memory: no socket, no lock (callers hold it). Item operations go
 * straight to its validations and actions (`direct`, direct.ts); the rest, and any
 * request its listener would refuse, through its request listener.
 */
export class DynaliteInvoker {
  private readonly headersByOperation = new Map<string, IncomingHttpHeaders>();

  constructor(
    private readonly listener: DynaliteListener,
    private readonly direct: DirectDynalite,
  ) {}

  /** Hands a client's request (already buffered) to dynalite and returns its reply. */
  async forward(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Reply> {
    const operation = body.length > 0 ? directOperationOf(method, url, headers) : undefined;
    if (operation) {
      let data: unknown;
      try {
        data = JSON.parse(body.toString('utf8'));
      } catch {
        data = undefined; // the listener answers the SerializationException
      }
      if (isRecord(data)) return replyOf(await this.direct.run(operation, data));
    }
    return this.listen(method, url, headers, body);
  }

  private listen(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const request = new CapturedRequest(method, url, headers);
      try {
        this.listener(request, new CapturedResponse(resolve));
        if (body.length > 0) request.emit('data', body);
        request.emit('end');
      } catch (error) {
        reject(error);
      }
    });
  }

  /** Runs one DynamoDB operation against dynalite, e.g. `call('GetItem', { TableName, Key })`. */
  async call<T = Record<string, unknown>>(operation: string, payload: unknown): Promise<CallResult<T>> {
    if (directOperations.has(operation) && isRecord(payload)) {
      // The payload goes as it is: dynalite's type check copies what it keeps.
      const outcome = await this.direct.run(operation, payload);
      if (outcome.ok) return { ok: true, data: outcome.data as T };
      return { ok: false, ...parseError(replyOf(outcome)) };
    }
    const reply = await this.listen('POST', '/', this.headersFor(operation), Buffer.from(JSON.stringify(payload)));
    if (reply.status === 200) return { ok: true, data: JSON.parse(reply.body) as T };
    return { ok: false, ...parseError(reply) };
  }

  /** Like `call`, for internal bookkeeping that must not fail: throws on any error reply. */
  async must<T = Record<string, unknown>>(operation: string, payload: unknown): Promise<T> {
    const result = await this.call<T>(operation, payload);
    if (!result.ok) throw new Error(`dynalite ${operation} failed: ${result.type}: ${result.message}`);
    return result.data;
  }

  private headersFor(operation: string): IncomingHttpHeaders {
    let headers = this.headersByOperation.get(operation);
    if (!headers) {
      headers = {
        'x-amz-target': targetPrefix + operation,
        'content-type': jsonContentType,
        'x-amz-date': '20200101T000000Z',
        authorization: internalAuthorization,
      };
      this.headersByOperation.set(operation, headers);
    }
    return headers;
  }
}
