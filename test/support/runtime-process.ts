/**
 * Starts the local runtime the way a developer does (`npm start`: a child process running
 * infra/local/main.ts) on a fresh data dir and a random port, for end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The bootstrap facts (bootstrap.json). */
export interface Bootstrap {
  account_id: string;
  api_url: string;
  functions_url: string;
  signin_url: string;
  apps_url: string;
  owner: { email: string; password: string };
  tokens: { live_secret: string; test_secret: string };
}

/** A runtime child process. */
export interface RuntimeProcess {
  url: string;
  dataDir: string;
  bootstrap: Bootstrap;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ROOT = resolve(import.meta.dirname, '../..');

const created: string[] = [];
// Temp data dirs go when the test worker exits (runtimes are stopped by then).
process.once('exit', () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A new empty data directory under the OS temp dir, removed when the process exits. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cartwheel-'));
  created.push(dir);
  return dir;
}

/** Starts `infra/local/main.ts` and waits for its listening line. */
export async function startRuntime(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<RuntimeProcess> {
  const dataDir = options.dataDir ?? tempDataDir();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'infra/local/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', CARTWHEEL_DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`Runtime did not start in time:\n${output}`)), 60_000);
    const check = () => {
      const match = /Cartwheel listening on (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`Runtime exited with ${code}:\n${output}`));
    });
  });
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  return {
    url,
    dataDir,
    bootstrap,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A fetch helper for the API: JSON body in, parsed JSON out, with status and headers. */
export async function api(
  url: string,
  options: { method?: string; token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
