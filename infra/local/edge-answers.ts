/**
 * The answers the local gateway gives itself, before or around any handler: request headers
 * over 16 KiB, a missing Host, bodies over their cap, requests Node's HTTP parser refuses,
 * start-up and shutdown 503s and unexpected faults. Each carries the error envelope (conventions.md §6)
 * through the same `toResponse` the handlers use, so `Content-Type`, `X-Request-Id` =
 * `reference` and the CORS headers are those of every other error.
 *
 * An answer given before the body was read closes the connection, and closes it so that the
 * client still reads the answer: the server half-closes, keeps discarding what the client is
 * still sending, and only then lets the socket go (a socket destroyed with unread input makes
 * the kernel send a reset, which can cost the client the answer it was sent).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InvalidInputError, InvalidSyntaxError } from '../../shared/http/errors';
import { errorResult, toResponse } from '../../shared/http/response';
import { newId } from '../../shared/core/ids';
import { writeResult } from './api-event';

/** The contract's limit on request headers, in all (conventions.md §20). */
export const MAX_REQUEST_HEADER_BYTES = 16 * 1024;

/**
 * What Node's own parser accepts (its default is 16 KiB, answered with a bare 431). Far above
 * the contract's limit, so that oversized headers reach the gateway, which answers them with
 * the envelope and CORS headers; anything larger still is answered by `answerClientError`.
 */
export const NODE_MAX_HEADER_BYTES = 1024 * 1024;

/** How long a closing connection keeps discarding input after its answer went out. */
const LINGER_MS = 5_000;

/** The bytes of a request's header fields as sent: `name: value\r\n` each (Node keeps them latin1). */
export function requestHeaderBytes(rawHeaders: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) bytes += rawHeaders[i]!.length + rawHeaders[i + 1]!.length + 4;
  return bytes;
}

/** 400 invalid_input for request headers over the limit. */
export function headersTooLarge(): InvalidInputError {
  return new InvalidInputError(`The request headers are larger than ${MAX_REQUEST_HEADER_BYTES / 1024} KiB in all.`, {
    parameter: 'headers',
    reason: 'too_long',
  });
}

/** 400 invalid_syntax for an HTTP/1.1 request without `Host` (RFC 9112 §3.2 requires the 400). */
export function hostMissing(): InvalidSyntaxError {
  return new InvalidSyntaxError('An HTTP/1.1 request must carry a Host header.', { header: 'Host', reason: 'required' });
}

/** The error envelope of `error` as a response, with a new request id and the CORS headers of `origin`. */
function envelopeOf(error: unknown, origin: string | undefined): APIGatewayProxyStructuredResultV2 {
  const requestId = newId();
  return toResponse(errorResult(error, requestId), requestId, origin, undefined);
}

/**
 * Answers `error` with the envelope. `close` ends the connection after the answer (when the
 * body was not read, or the runtime is stopping) without cutting the client off.
 */
export function answerError(req: IncomingMessage, res: ServerResponse, error: unknown, close: boolean): void {
  if (res.headersSent) return;
  const result = envelopeOf(error, req.headers.origin);
  if (close) {
    result.headers = { ...result.headers, Connection: 'close' };
    lingerOnClose(req.socket);
  }
  writeResult(res, result);
}

/**
 * Makes Node's close after a `Connection: close` answer a lingering one. Node ends such a
 * socket with `destroySoon()` once the answer is written; here it half-closes instead and
 * destroys the socket when the client has hung up, or after `LINGER_MS`. The HTTP parser keeps
 * reading meanwhile and drops the rest of the body.
 */
function lingerOnClose(socket: Socket): void {
  (socket as Socket & { destroySoon: () => void }).destroySoon = () => linger(socket);
}

/** Half-closes `socket` now and destroys it once the client hangs up, or after `LINGER_MS`. */
function linger(socket: Duplex): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  const done = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  socket.once('end', done);
  socket.once('close', done);
}

/** Sockets already answered after a parse error (the parser reports every later chunk again). */
const refusedSockets = new WeakSet<Duplex>();

/**
 * The server's `clientError` listener: a request Node's parser refuses (malformed, headers
 * beyond `NODE_MAX_HEADER_BYTES`, too slow) gets the envelope written straight to the socket,
 * then a lingering close. There is no request object, hence no `Origin` and no CORS headers.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (refusedSockets.has(socket)) return;
  refusedSockets.add(socket);
  // As Node's own handler: nothing to say on a reset connection, or once an answer has begun.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = rawResponse(envelopeOf(clientErrorOf(error), undefined));
  if (inFlight) {
    // A request of this connection is still being handled: answer, and cut it off.
    socket.end(answer, () => socket.destroy());
    return;
  }
  socket.write(answer);
  linger(socket);
}

/** The API error for a parse failure of Node's HTTP server. */
function clientErrorOf(error: Error & { code?: string }): Error {
  if (error.code === 'HPE_HEADER_OVERFLOW') return headersTooLarge();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new InvalidSyntaxError('The request did not arrive completely in time.', { reason: 'timeout' });
  return new InvalidSyntaxError('The request is not valid HTTP/1.1.');
}

/** A result as the bytes of an HTTP/1.1 response that closes the connection. */
function rawResponse(result: APIGatewayProxyStructuredResultV2): Buffer {
  const status = result.statusCode ?? 500;
  const body = Buffer.from(result.body ?? '', 'utf8');
  const headers = { ...result.headers, 'Content-Length': body.length, Connection: 'close' };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
