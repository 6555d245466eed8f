/**
 * The answers the local runtime's HTTP server gives before any handler runs, over real HTTP
 * (conventions.md §4, §6, §20; local-runtime.md): request headers over 16 KiB in all give 400
 * invalid_input, JSON bodies over 1 MiB 422 account_limit_exceeded whether sent with a
 * Content-Length or chunked, a multipart/form-data body the upload cap, a request Node's
 * parser refuses or one without Host 400 invalid_syntax, and unknown paths 404 — each with the error envelope,
 * `Content-Type: application/json` exactly, `X-Request-Id` = `reference`, CORS headers when an
 * Origin was sent, and a connection closed so that the client reads the answer.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let port: number;
let live: string;

const KiB = 1024;
const MiB = 1024 * KiB;
const ORIGIN = 'http://localhost:5173';
const ENVELOPE_KEYS = ['code', 'message', 'meta', 'reference', 'status', 'type'];

beforeAll(async () => {
  runtime = await startRuntime();
  base = runtime.bootstrap.api_url;
  port = runtime.port;
  live = runtime.bootstrap.tokens.live_secret;
});
afterAll(async () => {
  expect(await runtime.stop('SIGTERM')).toBe(0);
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** The answer's error, after checking the envelope, its content type and X-Request-Id. */
function envelope(answer: Answer, status: number, code: string): Record<string, any> {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/json');
  const error = JSON.parse(answer.text).error;
  expect(Object.keys(error).sort()).toEqual(ENVELOPE_KEYS);
  expect(error).toMatchObject({ status, code });
  expect(typeof error.message).toBe('string');
  expect(error.reference).toMatch(/^[0-9A-Z]{12}$/);
  expect(error.reference).toBe(answer.headers.get('x-request-id'));
  return error;
}

function expectCors(answer: Answer): void {
  expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  expect(answer.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  expect(answer.headers.get('vary')).toBe('Origin');
}

async function send(url: string, init: RequestInit & { duplex?: 'half' }): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** What a raw client saw: the answer's bytes, and how the connection ended. */
interface RawExchange {
  status?: number;
  headers: Headers;
  text: string;
  head: string;
  /** `closed` when the server closed cleanly; otherwise the socket error code. */
  ending: string;
}

/**
 * Writes `chunks` over a plain socket (and ends its write side after the last one, unless
 * `endAfterWrite` is false: Node drops the pending answer of a half-closed client), then reads
 * until the server closes. A client that was cut off by a reset reports the error code
 * instead of `closed`.
 */
function rawExchange(chunks: Array<string | Buffer>, options: { endAfterWrite?: boolean } = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let ending = 'closed';
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.endAfterWrite ?? true) socket.end();
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server half-closed after its answer: hang up too, as clients do.
    socket.on('end', () => socket.end());
    socket.on('error', (error: NodeJS.ErrnoException) => (ending = error.code ?? String(error)));
    socket.on('close', () => {
      const all = Buffer.concat(received).toString('latin1');
      const split = all.indexOf('\r\n\r\n');
      const head = split >= 0 ? all.slice(0, split) : all;
      const headers = new Headers();
      for (const line of head.split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      resolve({ status: match ? Number(match[1]) : undefined, headers, text: split >= 0 ? all.slice(split + 4) : '', head, ending });
    });
  });
}

function asAnswer(exchange: RawExchange): Answer {
  return { status: exchange.status ?? 0, headers: exchange.headers, text: exchange.text };
}

describe('request headers (16 KiB in all)', () => {
  it('answers a 64 KB Authorization header with 400 invalid_input, the envelope and CORS headers, not a bare 431', async () => {
    const answer = await send(`${base}auths/me`, { headers: { Authorization: `Bearer ${'x'.repeat(64 * KiB)}`, Origin: ORIGIN } });
    const error = envelope(answer, 400, 'invalid_input');
    expect(error.meta).toEqual({ parameter: 'headers', reason: 'too_long' });
    expectCors(answer);
    expect(answer.headers.get('connection')).toBe('close');
  });

  it('counts every header toward the limit, many small ones too', async () => {
    const headers: Record<string, string> = { Authorization: `Bearer ${live}` };
    for (let i = 0; i < 3000; i++) headers[`x-h${i}`] = 'v';
    const error = envelope(await send(`${base}auths/me`, { headers }), 400, 'invalid_input');
    expect(error.meta).toEqual({ parameter: 'headers', reason: 'too_long' });
  });

  it('serves headers just under the limit', async () => {
    const answer = await api(`${base}auths/me`, { token: live, headers: { 'X-Padding': 'p'.repeat(15 * KiB) } });
    expect(answer.status, answer.text).toBe(200);
  });

  it('answers headers beyond what Node parses (2 MiB) with the envelope written to the socket', async () => {
    const exchange = await rawExchange([`GET /api/v1/auths/me HTTP/1.1\r\nHost: localhost\r\nX-Huge: ${'h'.repeat(2 * MiB)}\r\n\r\n`]);
    expect(exchange.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const error = envelope(asAnswer(exchange), 400, 'invalid_input');
    expect(error.meta).toEqual({ parameter: 'headers', reason: 'too_long' });
    expect(exchange.headers.get('connection')).toBe('close');
    expect(exchange.ending).toBe('closed');
  });
});

describe('JSON bodies (1 MiB)', () => {
  const tooLarge = () => Buffer.alloc(10.5 * MiB, 'a');

  it('answers a 10.5 MiB body sent with Content-Length with 422 account_limit_exceeded and CORS headers, not a bare 413', async () => {
    const answer = await send(`${base}auths/secret`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json', Origin: ORIGIN },
      body: tooLarge(),
    });
    const error = envelope(answer, 422, 'account_limit_exceeded');
    expect(error.meta).toEqual({ limit_bytes: MiB });
    expectCors(answer);
    expect(answer.headers.get('connection')).toBe('close');
  });

  it('answers the same body sent chunked (no Content-Length) once 1 MiB has arrived', async () => {
    const body = tooLarge();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < body.length; offset += 256 * KiB) controller.enqueue(body.subarray(offset, offset + 256 * KiB));
        controller.close();
      },
    });
    const answer = await send(`${base}auths/secret`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expect(envelope(answer, 422, 'account_limit_exceeded').meta).toEqual({ limit_bytes: MiB });
  });

  it('closes cleanly: a raw client that keeps sending reads the whole answer and sees no reset, with Content-Length or chunked', async () => {
    const body = tooLarge();
    const head = `POST /api/v1/auths/secret HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${live}\r\nContent-Type: application/json\r\n`;
    const withLength = await rawExchange([`${head}Content-Length: ${body.length}\r\n\r\n`, body]);
    expect(envelope(asAnswer(withLength), 422, 'account_limit_exceeded').meta).toEqual({ limit_bytes: MiB });
    expect(withLength.ending).toBe('closed');

    const chunks: Buffer[] = [Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n`)];
    for (let offset = 0; offset < body.length; offset += 512 * KiB) {
      const piece = body.subarray(offset, offset + 512 * KiB);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    const chunked = await rawExchange(chunks);
    expect(envelope(asAnswer(chunked), 422, 'account_limit_exceeded').meta).toEqual({ limit_bytes: MiB });
    expect(chunked.ending).toBe('closed');
  });

  it('refuses before the body is sent when the client expects 100-continue', async () => {
    const exchange = await rawExchange(
      [`POST /api/v1/auths/secret HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${11 * MiB}\r\nExpect: 100-continue\r\n\r\n`],
      { endAfterWrite: false },
    );
    expect(exchange.head).not.toContain('100 Continue');
    envelope(asAnswer(exchange), 422, 'account_limit_exceeded');
  });

  it('lets a body of exactly 1 MiB through to the handler, and refuses one byte more', async () => {
    const json = (size: number) => {
      const prefix = '{"comments":"x","permissions":[{"resource":"orders","methods":["read"]}],"padding":"';
      return `${prefix}${'y'.repeat(size - prefix.length - 2)}"}`;
    };
    const exact = await api(`${base}auths/secret`, { method: 'POST', token: live, rawBody: json(MiB), headers: { 'Content-Type': 'application/json' } });
    expect(exact.status, exact.text).toBe(201);
    const over = await send(`${base}auths/secret`, { method: 'POST', headers: { Authorization: `Bearer ${live}`, 'Content-Type': 'application/json' }, body: json(MiB + 1) });
    envelope(over, 422, 'account_limit_exceeded');
  });
});

describe('multipart/form-data bodies (the upload cap)', () => {
  const multipart = (size: number) => {
    const boundary = 'cartwheel-test-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat([Buffer.from(head), Buffer.alloc(size, 1), Buffer.from(tail)]) };
  };

  it('passes a 10 MB upload body on to the upload route (which answers it), far over the JSON cap', async () => {
    const { type, body } = multipart(10_000_000);
    // Ten million bytes of 0x01 are no picture: the route's own 400 shows the gateway let the body through.
    const answer = await send(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${live}`, 'Content-Type': type }, body });
    expect(envelope(answer, 400, 'invalid_input').meta).toMatchObject({ property: 'file' });
  });

  it('refuses an upload body over 11 MiB with 422 account_limit_exceeded', async () => {
    const { type, body } = multipart(11 * MiB);
    const answer = await send(`${base}images`, { method: 'POST', headers: { Authorization: `Bearer ${live}`, 'Content-Type': type }, body });
    expect(envelope(answer, 422, 'account_limit_exceeded').meta).toEqual({ limit_bytes: 11 * MiB });
  });

  it('gives a multipart body to a route that takes no uploads only the 1 MiB cap', async () => {
    const { type, body } = multipart(2 * MiB);
    const answer = await send(`${base}products`, { method: 'POST', headers: { Authorization: `Bearer ${live}`, 'Content-Type': type }, body });
    expect(envelope(answer, 422, 'account_limit_exceeded').meta).toEqual({ limit_bytes: MiB });
  });
});

describe('requests the HTTP parser refuses, and unknown paths', () => {
  it('answers a malformed request with 400 invalid_syntax in the envelope, and closes cleanly', async () => {
    const exchange = await rawExchange(['BLAH /api/v1/auths HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n']);
    envelope(asAnswer(exchange), 400, 'invalid_syntax');
    expect(exchange.ending).toBe('closed');
  });

  it('answers an HTTP/1.1 request without Host with 400 invalid_syntax in the envelope, not a bare 400', async () => {
    const exchange = await rawExchange([`GET /api/v1/auths/me HTTP/1.1\r\nAuthorization: Bearer ${live}\r\n\r\n`]);
    expect(envelope(asAnswer(exchange), 400, 'invalid_syntax').meta).toEqual({ header: 'Host', reason: 'required' });
    expect(exchange.ending).toBe('closed');
  });

  it('serves a request with an expectation it does not know, rather than a bare 417', async () => {
    const exchange = await rawExchange([`GET /api/v1/auths/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${live}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`], {
      endAfterWrite: false,
    });
    expect(exchange.status, exchange.head).toBe(200);
    expect(JSON.parse(exchange.text)).toMatchObject({ object: 'auth' });
  });

  it('answers paths outside /api/v1 and unknown local pages with the 404 envelope', async () => {
    for (const path of ['/', '/nothing', '/images/none.png', '/api/v1']) {
      const answer = await send(`${runtime.url}${path}`, { headers: { Origin: ORIGIN } });
      envelope(answer, 404, 'resource_not_found');
      expectCors(answer);
    }
    envelope(await send(`${runtime.url}/_local/nothing`, {}), 404, 'resource_not_found');
  });
});
