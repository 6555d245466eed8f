/**
 * The local `FunctionRunner` (functions.md §11): unpacks each function's code into the data
 * directory and runs it in warm child processes, confined by the runtime's own means (Node's
 * permission model and heap limit; Python's address-space limit and audit hook) and, where the
 * machine has bubblewrap, by namespaces.
 *
 * Per function: at most `maxChildren` (4) children serve calls, one call each at a time; extra
 * calls wait in order (at most their own timeout). A child idle for 10 minutes is stopped. The
 * deployment a call names becomes the function's current one: children of another deployment
 * finish their call and stop. A timeout kills the child (and everything it started); a crash or
 * a memory overrun answers the call, and the next call gets a fresh child.
 *
 * @example
 *   const functions = localFunctionRunner({ dir: paths.functions, objects });
 *   await functions.deploy(deployment);
 *   const outcome = await functions.invoke(target, event);
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DeployOutcome, FunctionDeployment, FunctionRef, FunctionRunner, FunctionSettings, InvokeOutcome, InvokeTarget, ObjectStorage } from '../../../shared/platform/ports';
import { Child } from './child';
import { CodeProblem, codeDirName, functionDir, handlerProblem, removeCodeDirs, unpackCode } from './code';
import { CHILD_PATH, childCommand, findBwrap, findPython, onPath, type PythonInstall } from './sandbox';

/** How to build the local runner. */
export interface LocalFunctionRunnerOptions {
  /** Where code and scratch folders live (`<data>/functions`). */
  dir: string;
  /** Where uploaded zips are (`functions` bucket). */
  objects: ObjectStorage;
  /** Receives merchant output (`[fn <id>] line`) and the runner's own notes; default: discarded. */
  log?: (line: string) => void;
  /** `auto` (default): namespaces when bwrap works here; `none`: never (tests, comparisons). */
  confine?: 'auto' | 'none';
  /** The Node binary for children (default: this process's, which is Node 22 under `npm start`). */
  nodePath?: string;
  /** The command that finds Python (default `python3` on PATH; its real interpreter is used). */
  pythonCommand?: string;
  /** Children per function (default 4, the contract's). */
  maxChildren?: number;
  /** A child idle this long is stopped (default 10 minutes). */
  idleMs?: number;
  /** Longest a child may take to start and load its handler (default 10 s). */
  startTimeoutMs?: number;
  /**
   * Folders a Python child may not read (its own code, scratch folder and interpreter excepted):
   * by default the folder holding `dir` (the data directory), the operator's home, the runtime's
   * working directory (the repository) and `/proc` (other processes' environments). Node
   * children read only their code and the runner's files.
   */
  privatePaths?: string[];
}

/** The local runner: the port plus what the runtime and tests need. */
export interface LocalFunctionRunner extends FunctionRunner {
  /** Whether children run in namespaces: `bwrap`, or `none` (decided on first use). */
  confinement(): 'bwrap' | 'none';
  /** The children of one function now (tests and diagnostics). */
  children(ref: FunctionRef): Array<{ pid: number | undefined; deploymentId: string; state: Child['state'] }>;
  /** Stops every child; calls in flight answer `crashed`. */
  stop(): Promise<void>;
}

/** A child with what the runner keeps about it. */
interface Slot {
  child: Child;
  index: number;
  deploymentId: string;
}

/** A call waiting for a child. */
interface Waiter {
  target: InvokeTarget;
  resolve: (slot: Slot | InvokeOutcome) => void;
  timer: NodeJS.Timeout;
}

/** One function's children and queue. */
interface FunctionState {
  ref: FunctionRef;
  dir: string;
  /** The deployment new children start with. */
  current: FunctionSettings | undefined;
  /** Deployments seen and replaced; a late call naming one is served by the current one. */
  retired: Set<string>;
  slots: Slot[];
  /** Children being started (counted against the limit). */
  starting: number;
  waiters: Waiter[];
}

const FOUR = 4;
const TEN_MINUTES = 10 * 60_000;

/** Builds the local runner; nothing is started until the first call. */
export function localFunctionRunner(options: LocalFunctionRunnerOptions): LocalFunctionRunner {
  const log = options.log ?? (() => undefined);
  const maxChildren = options.maxChildren ?? FOUR;
  const idleMs = options.idleMs ?? TEN_MINUTES;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const privatePaths = options.privatePaths ?? [dirname(options.dir), homedir(), process.cwd(), '/proc'];
  const functions = new Map<string, FunctionState>();
  const unpacking = new Map<string, Promise<void>>();
  /** Code folders a deploy or a call is using right now (never swept, even before they serve). */
  const pinned = new Map<string, number>();
  const pin = (codeDir: string) => {
    pinned.set(codeDir, (pinned.get(codeDir) ?? 0) + 1);
    return () => {
      const count = pinned.get(codeDir)! - 1;
      if (count > 0) pinned.set(codeDir, count);
      else pinned.delete(codeDir);
    };
  };
  let stopped = false;

  let bwrap: string | undefined | null = null;
  const confinedBy = (): string | undefined => {
    if (bwrap === null) bwrap = options.confine === 'none' ? undefined : findBwrap();
    return bwrap;
  };
  let python: PythonInstall | undefined | null = null;
  const pythonInstall = (): PythonInstall | undefined => {
    if (python === null) python = findPython(options.pythonCommand);
    return python;
  };

  const keyOf = (ref: FunctionRef) => `${ref.accountId}/${ref.mode}/${ref.functionId}`;
  const stateOf = (ref: FunctionRef): FunctionState => {
    const key = keyOf(ref);
    let state = functions.get(key);
    if (!state) {
      state = { ref: { accountId: ref.accountId, mode: ref.mode, functionId: ref.functionId }, dir: functionDir(options.dir, ref), current: undefined, retired: new Set(), slots: [], starting: 0, waiters: [] };
      functions.set(key, state);
    }
    return state;
  };
  const codeDirOf = (state: FunctionState, settings: FunctionSettings) => join(state.dir, codeDirName(settings.codeKey));

  /** Unpacks a code folder once, however many calls ask for it at the same time. */
  const ensureCode = (codeKey: string, codeDir: string): Promise<void> => {
    let running = unpacking.get(codeDir);
    if (!running) {
      running = unpackCode(options.objects, codeKey, codeDir).finally(() => unpacking.delete(codeDir));
      unpacking.set(codeDir, running);
    }
    return running;
  };

  /** Makes `settings` the function's current deployment: children of others finish and stop. */
  const makeCurrent = (state: FunctionState, settings: FunctionSettings): void => {
    if (state.current?.deploymentId === settings.deploymentId) return;
    if (state.retired.has(settings.deploymentId)) return;
    if (state.current) state.retired.add(state.current.deploymentId);
    state.current = pick(settings);
    for (const slot of state.slots) {
      if (slot.deploymentId !== settings.deploymentId && slot.child.state === 'idle') slot.child.end();
    }
    void sweepCode(state);
  };

  /** Removes code folders nothing serves any more. */
  const sweepCode = async (state: FunctionState): Promise<void> => {
    if (!state.current) return;
    const keep = new Set([codeDirOf(state, state.current)]);
    for (const slot of state.slots) keep.add(slot.child.codeDir);
    for (const codeDir of pinned.keys()) keep.add(codeDir);
    await removeCodeDirs(state.dir, keep);
  };

  /** Starts a child of the current deployment in a free slot number. */
  const startChild = async (state: FunctionState, target: InvokeTarget): Promise<Slot | InvokeOutcome> => {
    const settings = state.current!;
    const used = new Set(state.slots.map((slot) => slot.index));
    let index = 0;
    while (used.has(index)) index++;
    const codeDir = codeDirOf(state, settings);
    const scratchDir = join(state.dir, `scratch-${index}`);
    const runtime = settings.runtime === 'nodejs22.x' ? 'node' : 'python';
    const install = runtime === 'python' ? pythonInstall() : undefined;
    if (runtime === 'python' && !install) return { kind: 'runtime_unavailable', message: 'python3 is not installed on this machine.' };
    // The scratch folder is the child's alone and starts empty.
    rmSync(scratchDir, { recursive: true, force: true });
    mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
    const command = childCommand({ runtime, node: options.nodePath, python: install, codeDir, scratchDir, memoryMb: settings.memoryMb, bwrap: confinedBy() });
    // Variables are opened only here, when a child starts; platform values win over the merchant's.
    const variables = await target.environment();
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(variables)) if (!RESERVED.test(name)) env[name] = value;
    Object.assign(env, { PATH: CHILD_PATH, LANG: 'C.UTF-8', TZ: 'UTC', HOME: command.inside.code, TMPDIR: command.inside.scratch });
    const prefix = `[fn ${state.ref.functionId}]`;
    const slot: Slot = {
      index,
      deploymentId: settings.deploymentId,
      child: new Child({
        command,
        env,
        codeDir,
        init: {
          type: 'init',
          codeDir: command.inside.code,
          handler: settings.handler,
          functionName: settings.functionId,
          memoryMb: settings.memoryMb,
          wrapperDir: command.inside.wrapperDir,
          scratchDir: command.inside.scratch,
          privatePaths,
        },
        startTimeoutMs,
        onOutput: outputBudget(prefix, log),
        onExit: (child) => {
          state.slots = state.slots.filter((candidate) => candidate.child !== child);
          pump(state);
          if (!state.slots.some((candidate) => candidate.child.codeDir === child.codeDir)) void sweepCode(state);
        },
      }),
    };
    state.slots.push(slot);
    const failed = await slot.child.started;
    return failed ?? slot;
  };

  /** Gives free children (or room for new ones) to waiting calls, first come first served. */
  const pump = (state: FunctionState): void => {
    while (state.waiters.length > 0) {
      const idle = state.slots.find((slot) => slot.child.state === 'idle' && slot.deploymentId === state.current?.deploymentId);
      if (idle) {
        const waiter = state.waiters.shift()!;
        clearTimeout(waiter.timer);
        idle.child.state = 'busy';
        if (idle.child.idleTimer) clearTimeout(idle.child.idleTimer);
        waiter.resolve(idle);
        continue;
      }
      if (state.slots.length + state.starting >= maxChildren) {
        // All slots taken; stop idle children of a replaced deployment to make room.
        const stale = state.slots.find((slot) => slot.child.state === 'idle' && slot.deploymentId !== state.current?.deploymentId);
        if (!stale) return;
        stale.child.end();
        continue;
      }
      const waiter = state.waiters.shift()!;
      clearTimeout(waiter.timer);
      state.starting++;
      void startChild(state, waiter.target)
        .then((started) => {
          if ('child' in started) started.child.state = 'busy';
          waiter.resolve(started);
        }, (error: unknown) => waiter.resolve({ kind: 'crashed', message: `The function could not start: ${(error as Error).message}` }))
        .finally(() => {
          state.starting--;
          pump(state);
        });
    }
  };

  /** A child for one call, or why there is none (a failed start, or the wait outlasted the timeout). */
  const acquire = (state: FunctionState, target: InvokeTarget, timeoutMs: number): Promise<Slot | InvokeOutcome> =>
    new Promise((resolve) => {
      const waiter: Waiter = {
        target,
        resolve,
        timer: setTimeout(() => {
          state.waiters = state.waiters.filter((candidate) => candidate !== waiter);
          resolve({ kind: 'timeout' });
        }, timeoutMs),
      };
      state.waiters.push(waiter);
      pump(state);
    });

  /** After a call: an idle child of the current deployment stays warm; others stop. */
  const release = (state: FunctionState, slot: Slot): void => {
    const child = slot.child;
    if (child.state === 'dead') return;
    if (slot.deploymentId !== state.current?.deploymentId || stopped) {
      child.end();
      return;
    }
    child.state = 'idle';
    child.idleTimer = setTimeout(() => child.end(), idleMs);
    child.idleTimer.unref();
    pump(state);
  };

  const endAll = (state: FunctionState, message: string): void => {
    for (const waiter of state.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve({ kind: 'crashed', message });
    }
    for (const slot of [...state.slots]) slot.child.end({ kind: 'crashed', message });
  };

  return {
    async deploy(deployment: FunctionDeployment): Promise<DeployOutcome> {
      const state = stateOf(deployment);
      const codeDir = codeDirOf(state, deployment);
      const unpin = pin(codeDir);
      try {
        await ensureCode(deployment.codeKey, codeDir);
        const problem = handlerProblem(codeDir, deployment.runtime, deployment.handler);
        if (problem) return { ok: false, message: problem };
        makeCurrent(state, deployment);
        return { ok: true };
      } catch (error) {
        if (error instanceof CodeProblem) return { ok: false, message: error.message };
        throw error;
      } finally {
        unpin();
      }
    },

    async remove(ref: FunctionRef): Promise<void> {
      const key = keyOf(ref);
      const state = functions.get(key);
      const dir = functionDir(options.dir, ref);
      if (state) {
        functions.delete(key);
        endAll(state, 'The function was removed.');
      }
      await rm(dir, { recursive: true, force: true });
    },

    async invoke(target: InvokeTarget, event: unknown): Promise<InvokeOutcome> {
      if (stopped) return { kind: 'crashed', message: 'The local runtime is stopping.' };
      const unavailable = runtimeUnavailable(target.runtime);
      if (unavailable) return unavailable;
      const state = stateOf(target);
      const timeoutMs = target.timeoutSeconds * 1000;
      makeCurrent(state, target);
      const settings = state.current!;
      const codeDir = codeDirOf(state, settings);
      const unpin = pin(codeDir);
      try {
        // The code folder is normally there since deployment; after a wiped folder, unpack again.
        await ensureCode(settings.codeKey, codeDir);
      } catch (error) {
        unpin();
        if (error instanceof CodeProblem) return { kind: 'not_found' };
        throw error;
      }
      let slot: Slot | InvokeOutcome;
      try {
        slot = await acquire(state, target, timeoutMs);
      } finally {
        unpin();
      }
      if (!('child' in slot)) return slot;
      try {
        return await slot.child.call(event, timeoutMs);
      } finally {
        release(state, slot);
      }
    },

    confinement: () => (confinedBy() ? 'bwrap' : 'none'),

    children(ref) {
      const state = functions.get(keyOf(ref));
      return (state?.slots ?? []).map((slot) => ({ pid: slot.child.pid, deploymentId: slot.deploymentId, state: slot.child.state }));
    },

    async stop(): Promise<void> {
      stopped = true;
      const exits: Promise<unknown>[] = [];
      for (const state of functions.values()) {
        for (const slot of state.slots) exits.push(new Promise((resolve) => (slot.child.process.exitCode !== null || slot.child.process.signalCode !== null ? resolve(undefined) : slot.child.process.once('exit', resolve))));
        endAll(state, 'The local runtime is stopping.');
      }
      // Bounded: a process that ignores SIGKILL does not exist, but a hung wait must not either.
      await Promise.race([Promise.all(exits), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    },
  };
}

/** Variable names the platform sets or that would change how the runtime starts. */
const RESERVED = /^(PATH|HOME|TMPDIR|TZ|LANG|NODE_OPTIONS|NODE_PATH|PYTHON.*|LD_.*|CARTWHEEL_.*)$/;

/** The settings of a deployment without its variables or other extras. */
function pick(settings: FunctionSettings): FunctionSettings {
  const { accountId, mode, functionId, runtime, handler, timeoutSeconds, memoryMb, codeKey, deploymentId } = settings;
  return { accountId, mode, functionId, runtime, handler, timeoutSeconds, memoryMb, codeKey, deploymentId };
}

let toolchains: Map<string, InvokeOutcome | undefined> | undefined;

/**
 * Java and .NET (functions.md §11): a call answers `runtime_unavailable` naming what is missing;
 * with a suitable toolchain it still does, since this runner has no Java or .NET harness yet.
 */
function runtimeUnavailable(runtime: FunctionSettings['runtime']): InvokeOutcome | undefined {
  if (runtime !== 'java21' && runtime !== 'dotnet8') return undefined;
  toolchains ??= new Map();
  if (!toolchains.has(runtime)) toolchains.set(runtime, runtime === 'java21' ? javaStatus() : dotnetStatus());
  return toolchains.get(runtime);
}

function javaStatus(): InvokeOutcome {
  const java = onPath('java');
  if (!java) return { kind: 'runtime_unavailable', message: 'Java 21 is not installed on this machine (no java on PATH).' };
  const version = javaMajor(java);
  if (version === undefined || version < 21) return { kind: 'runtime_unavailable', message: `Java 21 is not installed on this machine (java on PATH is ${version === undefined ? 'of an unknown version' : `version ${version}`}).` };
  return { kind: 'runtime_unavailable', message: 'Java functions are not supported by the local runner yet.' };
}

function dotnetStatus(): InvokeOutcome {
  if (!onPath('dotnet')) return { kind: 'runtime_unavailable', message: '.NET 8 is not installed on this machine (no dotnet on PATH).' };
  return { kind: 'runtime_unavailable', message: '.NET functions are not supported by the local runner yet.' };
}

/** The major version `java -version` reports (`openjdk version "17.0.15"`, `"1.8.0_402"`). */
function javaMajor(java: string): number | undefined {
    const run = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 15_000 });
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${run.stderr ?? ''}${run.stdout ?? ''}`);
  if (!match) return undefined;
  const major = Number(match[1]);
  return major === 1 && match[2] ? Number(match[2]) : major;
}

/**
 * Passes a child's output lines to `log` with the function's prefix, at most 200 lines a
 * minute per child (a chatty or looping function cannot flood the runtime's output).
 */
function outputBudget(prefix: string, log: (line: string) => void): (line: string) => void {
  let windowStart = Date.now();
  let count = 0;
  return (line) => {
    const now = Date.now();
    if (now - windowStart > 60_000) {
      windowStart = now;
      count = 0;
    }
    count++;
    if (count <= 200) log(`${prefix} ${line}`);
    else if (count === 201) log(`${prefix} (more output dropped this minute)`);
  };
}
