/**
 * HTTP requests to the local runtime with an explicit `Host`, for app hosts
 * (`<account_id>.apps.localhost:<port>`), which nothing on a test machine needs to resolve.
 */
import { request } from 'node:http';

/** What came back. */
export interface HostResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

/** One request to 127.0.0.1:`port` with `Host: host`. */
export function hostRequest(port: number, host: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HostResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: host, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString() });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
