/**
 * The embedded default: the whole platform in one Node process (local-runtime.md).
 *
 * Start-up order: lock the data dir → emulators (table, queues, buckets) → configuration
 * for the shared code (endpoints and the three local ports) → handlers → seed or reload the
 * bootstrap account → write bootstrap.json → serve. Shutdown reverses it and lets in-flight
 * requests and deliveries finish (at most 10 s).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, renameSync, chmodSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, type AccountBootstrap } from '../../shared/modules/accounts';
import { hashPassword } from '../../shared/modules/identity';
import { generatePassword } from '../../shared/core/ids';
import { useDynamoTransport } from '../../shared/store/client';
import { inProcessClientOptions } from './dynamo/in-process';
import { dataPaths, lockDataDir } from './data-dir';
import { queues } from '../../shared/app/queues';
import { schedules } from '../../shared/app/schedules';
import { LOCAL_REGION, startEmulators, type Emulators } from './emulators';
import { ServiceUnavailableError } from '../../shared/http/errors';
import { answerError } from './edge-answers';
import { createGateway, createGatewayServer, entryUrl, familyHandlers } from './gateway';
import { startPoller, type Poller, type QueueHandler } from './queue-poller';
import { useLocalPlatform } from './platform';
import { ManualClock } from './manual-clock';
import { systemClock } from '../../shared/platform/adapters/system-clock';
import type { Clock, Platform } from '../../shared/platform/ports';
import { hostingSource } from '../../shared/modules/hosting';
import type { PlatformConfig } from '../../shared/core/config';
import { settleWithin } from '../../shared/core/parallel';

/** Items the timer's TTL sweep examines per tick (every 5 s). */
const TTL_SWEEP_ITEMS = 2000;

/** How to start a runtime (defaults follow local-runtime.md). */
export interface RuntimeOptions {
  port: number;
  host: string;
  dataDir: string;
  clock: 'system' | 'manual';
  /** Print progress and the bootstrap facts. */
  log?: (line: string) => void;
}

/** A running runtime. */
export interface LocalRuntime {
  url: string;
  port: number;
  bootstrap: AccountBootstrap;
  emulators: Emulators;
  stop(): Promise<void>;
}

/** Reads the runtime options from the environment (PORT, HOST, CARTWHEEL_DATA_DIR, CARTWHEEL_CLOCK). */
export function optionsFromEnv(env: NodeJS.ProcessEnv): RuntimeOptions {
  const port = env.PORT === undefined || env.PORT === '' ? 4000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid PORT "${env.PORT}"`);
  const clock = env.CARTWHEEL_CLOCK ?? 'system';
  if (clock !== 'system' && clock !== 'manual') throw new Error(`Invalid CARTWHEEL_CLOCK "${clock}": use system or manual`);
  return { port, host: env.HOST || '127.0.0.1', dataDir: env.CARTWHEEL_DATA_DIR || './.data', clock };
}

/** How long a request that arrives during start-up waits before it gets 503 (local-runtime.md). */
const STARTUP_WAIT_MS = 30_000;

/** `load`, run on the first call only; a failed load is tried again by the next call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
}


/** 503 with the error envelope: still starting. */
function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  answerError(req, res, new ServiceUnavailableError('starting', 'The runtime is still starting; retry shortly.'), !req.complete);
}

/** Starts the local runtime. */
export async function startLocalRuntime(options: RuntimeOptions): Promise<LocalRuntime> {
  const log = options.log ?? (() => undefined);
  const paths = dataPaths(options.dataDir);
  const release = lockDataDir(paths.root, 'local runtime');
  let emulators: Emulators | undefined;
  try {
    // The platform's one clock: the system clock, or the manual one, kept across restarts in the data directory.
    let clock: Clock = systemClock;
    if (options.clock === 'manual') {
      const saved = existsSync(paths.clock) ? (JSON.parse(readFileSync(paths.clock, 'utf8')) as { now_ms?: number }).now_ms : undefined;
      const manual = new ManualClock(saved ?? Date.now());
      manual.onMoved(() => writeFileSync(paths.clock, JSON.stringify({ now_ms: manual.nowMs() })));
      clock = manual;
    }
    if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
      log(`Warning: binding ${options.host}, not loopback. Plain HTTP from other machines is refused with tls_required.`);
    }

    // Listen first so the real port (PORT=0 picks one) is known to the URLs; requests wait for `ready`.
    let markReady!: () => void;
    let ready = false;
    const readyPromise = new Promise<void>((resolve) => (markReady = resolve));
    const edgeSecret = randomBytes(24).toString('hex');
    // A request may arrive before the gateway exists (a browser tab or a retrying client
    // during a restart): it waits for it, or gets 503 after 30 s; it never reaches undefined.
    let gateway: ReturnType<typeof createGateway> | undefined;
    let gatewayBuilt!: (built: ReturnType<typeof createGateway>) => void;
    const gatewayReady = new Promise<ReturnType<typeof createGateway>>((resolve) => (gatewayBuilt = resolve));
    const server: Server = createGatewayServer((req, res) => {
      if (gateway) return void gateway.listener(req, res);
      void settleWithin(gatewayReady, STARTUP_WAIT_MS, undefined).then((built) => (built ? built.listener(req, res) : answerStarting(req, res)));
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const origin = `http://localhost:${port}`;

    // An empty data directory's owner password is hashed (scrypt, on the thread pool) while the emulators start.
    const owner = existsSync(paths.bootstrap) ? undefined : prehashedPassword();
    log('Starting emulators (DynamoDB, SQS, S3)...');
    emulators = await startEmulators(paths.root);
    // The handlers reach the emulator in this process without a socket (CARTWHEEL_DYNAMO_TRANSPORT=http: over HTTP, to compare).
    useDynamoTransport(process.env.CARTWHEEL_DYNAMO_TRANSPORT === 'http' ? undefined : inProcessClientOptions(emulators.dynamo));
    const { platform, settings } = useLocalPlatform(paths, emulators, port, clock, edgeSecret, log);
    if (platform.functions.confinement() === 'none') log('Hosted functions run without namespaces (bwrap not found): crash and mistake isolation only');

    gateway = createGateway({
      handler: familyHandlers(platform, settings),
      localPages: { outboxDir: paths.outbox, clock, isReady: () => ready, dynamoCalls: () => emulators!.dynamo.calls(), storeMemory: () => ({ readCache: emulators!.dynamo.readCache(), transactionTokens: emulators!.dynamo.transactionTokens() }) },
      edgeSecret,
      port: () => port,
      ready: readyPromise,
      objects: platform.objects,
      apps: { source: hostingSource(platform.objects), domain: settings.appsDomain, clock: platform.clock },
    });
    gatewayBuilt(gateway);
    
    const pollers = await startQueuePollers(emulators, platform, log);
    const stopSchedules = await startSchedules(platform, log);
        const bootstrap = await seedOrReload(platform, settings.publicUrls, paths.bootstrap, port, log, owner);
    writeBootstrap(paths.bootstrap, bootstrap);
    
    // dynalite has no TTL expiry: on a timer, a bounded sweep (the next 2,000 items each time:
    // a table of any size costs the same per tick; expired items go within minutes, where
    // DynamoDB takes up to days); a whole sweep whenever the manual clock moves.
    const sweepFailed = (error: unknown) => log(`TTL sweep failed: ${String(error)}`);
    let sweeping: Promise<unknown> | undefined;
    const sweepTimer = setInterval(() => {
      // One bounded sweep at a time: they share the place where the last one stopped.
      sweeping ??= emulators!.dynamo.sweepExpired(Math.floor(clock.nowMs() / 1000), { maxItems: TTL_SWEEP_ITEMS }).catch(sweepFailed).finally(() => (sweeping = undefined));
    }, 5_000);
    sweepTimer.unref();
    const stopSweepOnClock = clock.onMoved?.(() => void emulators!.dynamo.sweepExpired(Math.floor(clock.nowMs() / 1000)).catch(sweepFailed));

    ready = true;
    markReady();

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        clearInterval(sweepTimer);
        stopSweepOnClock?.();
        // Stop accepting: no new connections, and requests on kept-alive ones get 503 + close.
        gateway!.refuseNewRequests();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests may finish, for at most 10 s; then every connection is cut.
        await gateway!.drain(10_000);
        server.closeAllConnections();
        await closed;
        await Promise.all(pollers.map((poller) => poller.stop()));
        await stopSchedules();
        await platform.functions.stop();
        await emulators!.stop();
        useDynamoTransport(undefined);
        release();
      })());
    return { url: origin, port, bootstrap, emulators, stop };
  } catch (error) {
    await emulators?.stop().catch(() => undefined);
    useDynamoTransport(undefined);
    release();
    throw error;
  }
}

/**
 * Runs the scheduled jobs (shared/app/schedules.ts) as EventBridge would: each on its own timer,
 * and every job at once whenever the manual clock moves. A job never overlaps itself.
 */
async function startSchedules(platform: Platform, log: (line: string) => void): Promise<() => Promise<void>> {
  const runs: Array<{ run: () => Promise<void>; inFlight: () => Promise<void> | undefined; timer: NodeJS.Timeout }> = [];
  let stopped = false;
  for (const schedule of schedules) {
    // The job's module is imported by its first run, not before the runtime serves (start-up time).
    const job = once(async () => {
      const module = (await import(entryUrl(schedule.entry))) as { job: (platform: Platform) => Promise<unknown> };
      if (typeof module.job !== 'function') throw new Error(`${schedule.entry} does not export a job`);
      return module.job;
    });
    let running: Promise<void> | undefined;
    let again = false;
    // A clock move during a run asks for one more run after it (what became due may have been
    // missed by the run in progress), instead of leaving it to the next timer tick.
    const run = (): Promise<void> => {
      if (running) {
        again = true;
        return running;
      }
      running = job()
        .then((run) => run(platform))
        .then(() => undefined, (error: unknown) => log(`Scheduled job ${schedule.name} failed: ${String(error)}`))
        .finally(() => {
          running = undefined;
          if (again && !stopped) {
            again = false;
            void run();
          }
        });
      return running;
    };
    // Locally a shorter period than the cloud's keeps due work prompt without a clock move.
    const timer = setInterval(() => void run(), Math.min(schedule.everyMinutes * 60_000, 30_000));
    timer.unref();
    runs.push({ run, inFlight: () => running, timer });
  }
  const stopOnClock = platform.clock.onMoved?.(() => {
    for (const job of runs) void job.run();
  });
  return async () => {
    stopped = true;
    stopOnClock?.();
    for (const job of runs) clearInterval(job.timer);
    // Let a run in progress finish; start none.
    await Promise.all(runs.map((job) => job.inFlight()));
  };
}

/** Polls every queue that has a consumer, calling it as the cloud's event source mapping would. */
async function startQueuePollers(emulators: Emulators, platform: Platform, log: (line: string) => void): Promise<Poller[]> {
  const pollers: Poller[] = [];
  for (const queue of queues) {
    if (!queue.consumer) continue;
    // A worker module built over a platform (`consumer`) gets the local one; the cloud's `handler`
    // otherwise. It is imported when the first batch arrives, not before the runtime serves.
    const entry = queue.consumer.entry;
    const consumer = once(async () => {
      const module = (await import(entryUrl(entry))) as { handler: QueueHandler; consumer?: (platform: Platform) => QueueHandler };
      return module.consumer ? module.consumer(platform) : module.handler;
    });
    const created = emulators.queues.find((candidate) => candidate.name === queue.name)!;
    pollers.push(
      startPoller({
        sqs: emulators.sqs,
        queueName: queue.name,
        queueUrl: created.url,
        queueArn: created.arn,
        region: LOCAL_REGION,
        handler: async (event, context) => (await consumer())(event, context),
        batchSize: queue.consumer.batchSize,
        onError: (error) => log(`Queue ${queue.name}: ${String(error)}`),
      }),
    );
  }
  return pollers;
}

/** First start seeds the account (answering `urls`); later starts reload its facts and refresh the URLs. */
async function seedOrReload(platform: Platform, urls: PlatformConfig['publicUrls'], file: string, port: number, log: (line: string) => void, owner?: { password: string; passwordHash: Promise<string> }): Promise<AccountBootstrap> {
  const origin = `http://localhost:${port}`;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as AccountBootstrap;
    return {
      ...saved,
      api_url: `${origin}/api/v1/`,
      functions_url: origin,
      signin_url: `${origin}/signin/`,
      apps_url: `http://${saved.account_id}.apps.localhost:${port}`,
    };
  }
  log('Empty data directory: seeding an account...');
  return createAccount({ company: 'Local Merchant', email: 'owner@example.test', ...owner }, platform, urls);
}

/** A generated owner password with its hash under way (a failed hash fails the seeding that awaits it). */
function prehashedPassword(): { password: string; passwordHash: Promise<string> } {
  const password = generatePassword();
  const passwordHash = hashPassword(password);
  passwordHash.catch(() => undefined);
  return { password, passwordHash };
}

/** Writes bootstrap.json atomically with mode 0600 (it holds tokens and a password). */
function writeBootstrap(file: string, bootstrap: AccountBootstrap): void {
  const ordered = {
    account_id: bootstrap.account_id,
    api_url: bootstrap.api_url,
    functions_url: bootstrap.functions_url,
    signin_url: bootstrap.signin_url,
    apps_url: bootstrap.apps_url,
    owner: { email: bootstrap.owner.email, password: bootstrap.owner.password },
    tokens: bootstrap.tokens,
  };
  writeFileSync(`${file}.tmp`, `${JSON.stringify(ordered, null, 2)}\n`, { mode: 0o600 });
  chmodSync(`${file}.tmp`, 0o600);
  renameSync(`${file}.tmp`, file);
}

/** The bootstrap facts in readable form, with the clock's mode, as printed after the listening line. */
export function describeBootstrap(bootstrap: AccountBootstrap, clockMode: RuntimeOptions['clock']): string {
  return [
    `  Account:        ${bootstrap.account_id}`,
    `  API:            ${bootstrap.api_url}`,
    `  Functions:      ${bootstrap.functions_url}`,
    `  Sign-in:        ${bootstrap.signin_url}`,
    `  Apps:           ${bootstrap.apps_url}`,
    `  Owner:          ${bootstrap.owner.email} / ${bootstrap.owner.password}`,
    `  Live secret:    ${bootstrap.tokens.live_secret}`,
    `  Test secret:    ${bootstrap.tokens.test_secret}`,
    `  Clock:          ${clockMode}`,
  ].join('\n');
}
