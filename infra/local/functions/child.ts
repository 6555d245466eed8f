/**
 * One warm child process of the local function runner: started once, loads the handler once,
 * answers one call at a time over fd 3 (JSON lines; see node-child.cjs), and is killed with its
 * whole process group (bwrap and everything inside it) on a timeout, a retirement or a stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { InvokeOutcome } from '../../../shared/platform/ports';
import type { ChildCommand } from './sandbox';

/** What the child says on fd 3. */
type ChildMessage =
  | { type: 'ready' }
  | { type: 'loadError'; result: InvokeOutcome }
  | { type: 'result'; id: number; result: InvokeOutcome }
  | { type: 'outOfMemory'; id: number | null };

/** How to start a child. */
export interface ChildSpec {
  command: ChildCommand;
  env: Record<string, string>;
  /** The code folder it serves (on the host). */
  codeDir: string;
  /** The first message: what to load and how to describe itself to the handler. */
  init: Record<string, unknown>;
  /** How long loading may take before the start counts as a timeout. */
  startTimeoutMs: number;
  /** A line the child printed (its stdout or stderr). */
  onOutput(line: string): void;
  /** The child ended, for whatever reason (called once). */
  onExit(child: Child): void;
}

/** Signs of V8 running out of heap in a Node child's last words. */
const NODE_OOM = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;
/** Keep this much of the child's stderr to read its last words. */
const STDERR_TAIL = 8192;
/** Largest message from a child (a response is at most 6 MB; JSON escaping may double it). */
const MAX_MESSAGE = 32 * 1024 * 1024;
/** Longest output line passed on. */
const MAX_LINE = 2000;

/** A running child; `state` says whether it can take a call. */
export class Child {
  state: 'starting' | 'idle' | 'busy' | 'dead' = 'starting';
  readonly process: ChildProcess;
  /** Resolves when loaded (undefined) or with how the start failed. */
  readonly started: Promise<InvokeOutcome | undefined>;
  /** Timer stopping the child after it stayed idle too long (set by the runner). */
  idleTimer: NodeJS.Timeout | undefined;
  private readonly channel: Socket;
  private stderrTail = '';
  private buffered = '';
  private nextId = 1;
  private pending: { id: number; resolve: (outcome: InvokeOutcome) => void; timer: NodeJS.Timeout } | undefined;
  private starting: { resolve: (outcome: InvokeOutcome | undefined) => void; timer: NodeJS.Timeout } | undefined;
  /** Set when the runner ended the child on purpose (a timeout), so its exit is not a crash. */
  private endedAs: InvokeOutcome | undefined;
  private exited = false;

  constructor(private readonly spec: ChildSpec) {
    this.process = spawn(spec.command.file, spec.command.args, {
      cwd: spec.command.cwd,
      env: spec.env,
      // fd 3 is a socket pair: the protocol never shares a stream with merchant output.
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      // Its own process group: one signal reaches bwrap and everything it started.
      detached: true,
    });
    this.channel = this.process.stdio[3] as Socket;
    this.started = new Promise((resolve) => {
      const timer = setTimeout(() => this.failStart({ kind: 'timeout' }), spec.startTimeoutMs);
      this.starting = { resolve, timer };
    });
    this.channel.setEncoding('utf8');
    this.channel.on('data', (chunk: string) => this.receive(chunk));
    this.channel.on('error', () => undefined);
    this.process.stdout!.setEncoding('utf8');
    this.process.stderr!.setEncoding('utf8');
    lines(this.process.stdout!, (line) => spec.onOutput(line));
    lines(this.process.stderr!, (line) => spec.onOutput(line), (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    this.process.on('error', (error) => this.ended({ kind: 'crashed', message: `The function's process could not start: ${error.message}` }));
    this.process.on('exit', (code, signal) => {
      // Its stderr may still be in the pipe: read the last words before judging (bounded wait).
      const judge = () => this.ended(this.exitOutcome(code, signal));
      if (this.process.stderr!.readableEnded) judge();
      else {
        const timer = setTimeout(judge, 250);
        this.process.stderr!.once('end', () => {
          clearTimeout(timer);
          judge();
        });
      }
    });
    this.send(spec.init);
  }

  /** The code folder it serves (on the host). */
  get codeDir(): string {
    return this.spec.codeDir;
  }

  /** The process id (bwrap's when confined). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Runs one call; the child must be idle and marked busy by the caller. */
  call(event: unknown, timeoutMs: number): Promise<InvokeOutcome> {
    if (this.state === 'dead') return Promise.resolve(this.endedAs ?? { kind: 'crashed' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end({ kind: 'timeout' }), timeoutMs);
      this.pending = { id, resolve, timer };
      this.send({ type: 'invoke', id, event, deadlineMs: Date.now() + timeoutMs });
    });
  }

  /** Kills the child and its group now; a call in flight answers `outcome` (default: crashed). */
  end(outcome: InvokeOutcome = { kind: 'crashed', message: 'The function was stopped.' }): void {
    this.endedAs ??= outcome;
    this.kill();
    this.ended(outcome);
  }

  private kill(): void {
    const pid = this.process.pid;
    if (pid === undefined || this.exited) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        this.process.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private send(message: unknown): void {
    if (this.channel.writable) this.channel.write(`${JSON.stringify(message)}\n`);
  }

  private receive(chunk: string): void {
    if (this.exited) return;
    let newline = chunk.indexOf('\n');
    if (newline >= 0) newline += this.buffered.length;
    this.buffered += chunk;
    for (; newline >= 0 && !this.exited; newline = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (!line) continue;
      // Merchant code can write to fd 3 too: what is not a message ends the child, never the runtime.
      let message: ChildMessage;
      try {
        message = JSON.parse(line) as ChildMessage;
        if (!message || typeof message !== 'object') throw new Error('not a message');
      } catch {
        this.end({ kind: 'crashed', message: 'The function wrote over the runtime channel.' });
        return;
      }
      this.handle(message);
    }
    if (this.buffered.length > MAX_MESSAGE) this.end({ kind: 'crashed', message: `The function's answer exceeded ${MAX_MESSAGE / (1024 * 1024)} MB.` });
  }

  private handle(message: ChildMessage): void {
    if (message.type === 'ready') {
      if (this.state === 'starting') this.state = 'idle';
      this.settleStart(undefined);
    } else if (message.type === 'loadError') {
      // The handler cannot be loaded: answer that, and let the next call try a fresh child.
      this.failStart(resultOf(message.result));
    } else if (message.type === 'outOfMemory') {
      if (this.starting) this.failStart({ kind: 'out_of_memory' });
      else this.end({ kind: 'out_of_memory' });
    } else if (message.type === 'result' && this.pending !== undefined && this.pending.id === message.id) {
      const { resolve, timer } = this.pending;
      this.pending = undefined;
      clearTimeout(timer);
      resolve(resultOf(message.result));
    }
  }

  private settleStart(outcome: InvokeOutcome | undefined): void {
    if (!this.starting) return;
    clearTimeout(this.starting.timer);
    this.starting.resolve(outcome);
    this.starting = undefined;
  }

  private failStart(outcome: InvokeOutcome): void {
    this.settleStart(outcome);
    this.end(outcome);
  }

  private exitOutcome(code: number | null, signal: NodeJS.Signals | null): InvokeOutcome {
    if (this.endedAs) return this.endedAs;
    if (NODE_OOM.test(this.stderrTail) || /\bMemoryError\b/.test(this.stderrTail)) return { kind: 'out_of_memory' };
    return { kind: 'crashed', message: signal ? `The function's process was killed by ${signal}.` : `The function's process exited with code ${code}.` };
  }

  /** The child is gone (or going): answer whatever waits on it, once. */
  private ended(outcome: InvokeOutcome): void {
    if (this.exited) return;
    this.exited = true;
    this.state = 'dead';
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.settleStart(outcome);
    if (this.pending) {
      const { resolve, timer } = this.pending;
      this.pending = undefined;
      clearTimeout(timer);
      resolve(outcome);
    }
    this.channel.destroy();
    this.spec.onExit(this);
  }
}

/** A child's result as the port types it: only `returned` and `error` come from a child. */
function resultOf(result: unknown): InvokeOutcome {
  const given = (result ?? {}) as { kind?: unknown; value?: unknown; errorType?: unknown; errorMessage?: unknown };
  if (given.kind === 'returned') return 'value' in given && given.value !== undefined ? { kind: 'returned', value: given.value } : ({ kind: 'returned' } as InvokeOutcome);
  if (given.kind === 'error') return { kind: 'error', errorType: String(given.errorType ?? 'Error'), errorMessage: String(given.errorMessage ?? '') };
  return { kind: 'crashed', message: 'The function wrote over the runtime channel.' };
}

/** Calls `line` for each line of a stream (cut at MAX_LINE), and `raw` with each chunk. */
function lines(stream: NodeJS.ReadableStream, line: (text: string) => void, raw?: (chunk: string) => void): void {
  let partial = '';
  stream.on('data', (chunk: string) => {
    raw?.(chunk);
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    if (partial.length > MAX_LINE) {
      parts.push(partial);
      partial = '';
    }
    for (const part of parts) line(part.length > MAX_LINE ? `${part.slice(0, MAX_LINE)}...` : part);
  });
  stream.on('end', () => {
    if (partial) line(partial.slice(0, MAX_LINE));
  });
}
