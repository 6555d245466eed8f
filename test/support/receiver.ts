/** A real local HTTP receiver for notification tests: records every request and answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request so far, in arrival order. */
  received: Received[];
  /** Waits (real time, polling) until `path` has received `count` requests; answers them. */
  receivedAt(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** How the receiver answers a request: a status (its body `ok`, or `no, <status>`), or a status and a body. */
export type ReceiverAnswer = number | { status: number; body: string } | undefined;

/**
 * Starts a receiver on 127.0.0.1; `answer` gives each request's reply (200 `ok` when it answers
 * undefined) and `onRequest` sees each request as it arrives.
 */
export async function startReceiver(answer: (path: string) => ReceiverAnswer = () => undefined, onRequest?: (request: Received) => void): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      onRequest?.(request);
      const reply = answer(request.path) ?? 200;
      const status = typeof reply === 'number' ? reply : reply.status;
      res.writeHead(status, { 'Content-Type': 'text/plain' });
      res.end(typeof reply === 'number' ? (status >= 300 ? `no, ${status}` : 'ok') : reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async receivedAt(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = received.filter((entry) => entry.path === path);
        if (got.length >= count) return got;
        if (Date.now() > deadline) throw new Error(`${path} received ${got.length} of ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
