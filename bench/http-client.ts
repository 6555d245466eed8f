/**
 * The bench's HTTP client: `node:http` over one keep-alive agent, answering in the shape of the
 * tests' `api()` (status, headers, parsed body, text). The bench measures the server; Node's
 * `fetch` (undici) spent about 0.3 ms of client CPU per request on a 2-core machine, a constant
 * charged to every runtime alike that narrows every ratio. `--client fetch` keeps the old client.
 */
import { Agent, request } from 'node:http';
import { parseReply, requestOf, type ApiOptions, type ApiReply } from '../test/support/runtime-process';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Sends one request and collects its answer, like `api()`. */
export function httpApi(url: string, options: ApiOptions = {}): Promise<ApiReply> {
  const { headers, body } = requestOf(options);
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: options.method ?? 'GET', headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', reject);
      response.on('end', () => {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: response.statusCode ?? 0, headers: replyHeaders, body: parseReply(text), text });
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** Closes the kept-alive sockets (so the bench process can exit). */
export function closeHttpClient(): void {
  agent.destroy();
}
