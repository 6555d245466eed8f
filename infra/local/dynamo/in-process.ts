/**
 * The SDK's way into the local DynamoDB when both live in one process: a request handler that
 * hands each request's headers and body to the emulator's dispatch (`DynamoEmulator.invoke`)
 * and its reply back to the SDK, with no socket, no HTTP parsing and no request signing. The
 * handlers' code and the SDK above the transport are unchanged (issue 12: the local store made
 * cheap without a second code path); other processes still use the emulator's HTTP endpoint.
 *
 * Signing: the SigV4 scheme keeps its identity (the dummy local credentials) but signs
 * nothing (`unsignedLocalAuthSchemes`, shared with the local queue clients): the emulator never
 * checks signatures, only that a request says it is authorized.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoEmulator } from './emulator';
import { unsignedLocalAuthSchemes } from '../../../shared/store/client';

type RequestHandler = NonNullable<DynamoDBClientConfig['requestHandler']>;
type AuthSchemes = NonNullable<DynamoDBClientConfig['httpAuthSchemes']>;

/** The part of a smithy HttpRequest the handler reads. */
interface SdkRequest {
  headers: Record<string, string>;
  body?: unknown;
}

const utf8 = new TextEncoder();

/** The request body as bytes (the JSON protocol sends a string). */
function bodyBytes(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error('The in-process DynamoDB handler takes string or byte bodies only');
}

/** SDK client options that reach `emulator` in this process (merged over `localClientOptions`). */
export function inProcessClientOptions(emulator: Pick<DynamoEmulator, 'invoke'>): { requestHandler: RequestHandler; httpAuthSchemes: AuthSchemes } {
  const handler = {
    metadata: { handlerProtocol: 'in-process' },
    async handle(request: SdkRequest) {
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      headers['x-amz-date'] ??= '20200101T000000Z';
      const reply = await emulator.invoke(headers, bodyBytes(request.body));
      const replyHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(reply.headers)) replyHeaders[name.toLowerCase()] = value;
      // A byte body is collected as is; the SDK needs no stream for it.
      return { response: { statusCode: reply.status, headers: replyHeaders, body: utf8.encode(reply.body) } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
  return { requestHandler: handler as unknown as RequestHandler, httpAuthSchemes: unsignedLocalAuthSchemes as unknown as AuthSchemes };
}
