/**
 * Starts the local runtime the way a developer does (`npm start`: a child process running
 * infra/local/main.ts) on a fresh data dir and a random port, for end-to-end tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkResponse } from './openapi-responses';

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
  port: number;
  dataDir: string;
  bootstrap: Bootstrap;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** `kill -9`: resolves once the process is gone. */
  kill9(): Promise<void>;
  /** Starts a new runtime on the same data directory and port (after this one exited). */
  restart(): Promise<RuntimeProcess>;
}

/** A spawned runtime that may still be starting. */
export interface SpawnedRuntime {
  child: ChildProcess;
  dataDir: string;
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves with the URL of the listening line; rejects if the process exits first. */
  listening: Promise<string>;
}

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Node options of every local runtime, the same as `npm start`'s (a test keeps them equal).
 *
 * The old-generation cap: on a machine with gigabytes free V8 lets the heap grow to 4 times the
 * live data before it collects and keeps those pages, so a 100 MiB live heap held 450+ MiB and
 * rose with every peak (bench:soak); under a 1 GiB cap the factor is below 2 and the curve is
 * flat, at the same throughput. Lambda bounds each function's heap by its memory size the same
 * way.
 *
 * The async context frame (Node 24's default, behind this flag on 22): AsyncLocalStorage (the
 * fan-out relay's notes, the per-request DynamoDB meter) otherwise installs promise hooks that
 * run for every promise of the process, and a checkout makes thousands (the SDK's middleware);
 * without them the runtime spent about a tenth less CPU per checkout.
 */
export const RUNTIME_NODE_OPTIONS = ['--disable-warning=ExperimentalWarning', '--max-old-space-size=1024', '--experimental-async-context-frame'] as const;

/**
 * The Node options `npm start` gives the runtime in the checkout at `root` (its package.json's
 * `start` script, `NODE_OPTIONS='…' exec node infra/local/launch.mjs`, or in older checkouts
 * `NODE_OPTIONS='…' exec node --import tsx/esm infra/local/main.ts` or
 * `NODE_OPTIONS='…' tsx infra/local/main.ts`); none when it sets none, or when the script has
 * another shape (the options test then fails: it compares them with RUNTIME_NODE_OPTIONS).
 */
export function startNodeOptions(root: string = ROOT): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const start = manifest.scripts?.start ?? '';
  const options = /NODE_OPTIONS='([^']*)' (?:exec )?(?:node infra\/local\/launch\.mjs|node --import tsx(?:\/esm)?|tsx) (?:infra\/local\/main\.ts)?/.exec(`${start} `)?.[1]?.trim();
  return options ? options.split(/\s+/) : [];
}

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

/** A TCP port that was free a moment ago (bound on port 0, read, closed). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  return port;
}

/** How to start a runtime: data dir, extra environment, and which source tree to run. */
export interface RuntimeOptions {
  dataDir?: string;
  env?: Record<string, string>;
  /** The checkout whose `infra/local/main.ts` runs (default: this one; benches pass another commit's). */
  root?: string;
  /** Node options (default `RUNTIME_NODE_OPTIONS`; benches pass another commit's `startNodeOptions`). */
  nodeOptions?: readonly string[];
}

/** Spawns `infra/local/main.ts` and returns at once (the runtime is still starting). */
export function spawnRuntime(options: RuntimeOptions = {}): SpawnedRuntime {
  const dataDir = options.dataDir ?? tempDataDir();
  const root = options.root ?? ROOT;
  // As `npm start` runs it: the launcher builds the runtime when its sources changed and runs the
  // build. An older checkout (a bench's baseline) without the launcher runs its sources through tsx.
  const launcher = join(root, 'infra/local/launch.mjs');
  const entry = existsSync(launcher) ? [launcher] : ['--import', 'tsx/esm', join(root, 'infra/local/main.ts')];
  const child = spawn(process.execPath, [...(options.nodeOptions ?? RUNTIME_NODE_OPTIONS), ...entry], {
    cwd: root,
    env: { ...process.env, PORT: '0', CARTWHEEL_DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const listening = new Promise<string>((resolveUrl, reject) => {
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
  // Nobody may be waiting for the listening line (a test that watches the port instead).
  listening.catch(() => undefined);
  return { child, dataDir, output: () => output, exited, listening };
}

/** Starts `infra/local/main.ts` and waits for its listening line. */
export async function startRuntime(options: RuntimeOptions = {}): Promise<RuntimeProcess> {
  const spawned = spawnRuntime(options);
  const { child, dataDir, exited } = spawned;
  const url = await spawned.listening;
  const port = Number(new URL(url).port);
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    url,
    port,
    dataDir,
    bootstrap,
    child,
    output: spawned.output,
    stop,
    kill9: async () => {
      await stop('SIGKILL');
    },
    restart: async () => {
      if (child.exitCode === null && child.signalCode === null) throw new Error('restart() needs the previous runtime to have exited');
      return startRuntime({ ...options, dataDir, env: { ...options.env, PORT: String(port) } });
    },
  };
}

/**
 * A fetch helper for the API: JSON body in, parsed JSON out, with status and headers. Every
 * JSON answer from `/api/v1/` is checked against the API description (./openapi-responses.ts):
 * one that does not match it fails the test.
 */
export async function api(url: string, options: ApiOptions = {}): Promise<ApiReply> {
  const { headers, body } = requestOf(options);
  const method = options.method ?? 'GET';
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  await checkResponse(method, url, response.status, response.headers.get('content-type'), text);
  return { status: response.status, headers: response.headers, body: parseReply(text), text };
}

/** Every item of a cursor list, following `next_page_url`. */
export async function listAll(url: string, token: string): Promise<any[]> {
  const items: any[] = [];
  let next: string | null = url;
  while (next) {
    const page = await api(next, { token });
    if (page.status !== 200) throw new Error(`GET ${next} answered ${page.status}: ${page.text}`);
    items.push(...page.body.data);
    next = page.body.next_page_url;
  }
  return items;
}

/** What `api()` sends: method, bearer token, a JSON body (or a raw one), extra headers. */
export interface ApiOptions {
  method?: string;
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** What `api()` answers: the status, headers, the parsed JSON body (undefined if none) and its text. */
export interface ApiReply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** The headers and body text `options` make (shared with the bench's node:http client). */
export function requestOf(options: ApiOptions): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  return { headers, body };
}

/** A reply's text as JSON, or undefined when it is empty or not JSON. */
export function parseReply(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** What the operator command prints for an account it made (infra/accounts/create-account.ts). */
export interface MadeAccount {
  account_id: string;
  owner: { user_id: string; email: string; password: string };
  tokens: { live_secret: string; test_secret: string };
}

/**
 * A runtime whose data directory holds a second account besides the seeded one (`other`), made
 * by the operator command while the runtime was stopped, as an operator would: for isolation
 * probes across accounts.
 */
export async function startRuntimeWithSecondAccount(options: Omit<RuntimeOptions, 'dataDir'> = {}): Promise<{ runtime: RuntimeProcess; other: MadeAccount }> {
  const dataDir = tempDataDir();
  const first = await startRuntime({ ...options, dataDir });
  await first.stop();
  const made = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'infra/accounts/create-account.ts'), '--company', 'Other', '--email', 'other@example.test', '--user-id', 'other-owner'], {
    cwd: ROOT,
    env: { ...process.env, CARTWHEEL_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`The operator command failed (${made.status}): ${made.stderr}`);
  return { runtime: await startRuntime({ ...options, dataDir }), other: JSON.parse(made.stdout) as MadeAccount };
}
