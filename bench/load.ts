/** A small HTTP load generator for benchmarks: sequential latency and concurrent throughput. */
import { Agent, request } from 'node:http';

/** Latency percentiles in milliseconds. */
export interface LatencyFigures {
  p50: number;
  p90: number;
  p99: number;
  count: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One GET; resolves with the status once the whole body arrived. */
export function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The `p`th percentile (0–100) of samples sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends `count` requests one after another and reports latency percentiles. */
export async function sequentialLatency(url: string, headers: Record<string, string>, count: number): Promise<LatencyFigures> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const status = await get(url, headers);
    samples.push(performance.now() - start);
    if (status !== 200) throw new Error(`Unexpected status ${status} from ${url}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), count };
}

/** Keeps `concurrency` requests in flight for `seconds` and reports requests per second. */
export async function throughput(url: string, headers: Record<string, string>, concurrency: number, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const status = await get(url, headers);
      if (status !== 200) throw new Error(`Unexpected status ${status} from ${url}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - start) / 1000);
}
