/**
 * The scaffolding of the `kill -9` tests (test/e2e/crash-*.test.ts): workers (shoppers, payers)
 * pay in a loop against a runtime that the test kills with SIGKILL at random moments and
 * restarts on the same data directory and port; a worker retries a step whose connection
 * failed, as a real client does. Afterwards the test reads the facts back until its invariants
 * hold or the settle time is over. The two tests differ only in what their workers pay and what
 * they check, so the loops live here once.
 */
import { api, type ApiReply, type RuntimeProcess } from './runtime-process';

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomBetween = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));

/** What a crash run counted. */
export interface CrashCounts {
  /** Payments the workers started. */
  attempted: number;
  /** Payments answered 201. */
  completed: number;
  /** Steps tried again after a lost connection (the runtime was down or restarting). */
  connectionRetries: number;
  /** Re-POSTs answered 409: the first attempt still holds the lock. */
  inUse: number;
  /** Re-POSTs answered 422: the first attempt paid. */
  alreadyPaid: number;
  kills: number;
}

/** One crash run: its runtime (a new process after each restart), its workers' counts and the answers nobody expected. */
export class CrashRun {
  readonly counts: CrashCounts = { attempted: 0, completed: 0, connectionRetries: 0, inUse: 0, alreadyPaid: 0, kills: 0 };
  readonly unexpected: string[] = [];
  /** False once the workers are told to stop. */
  running = true;

  constructor(public runtime: RuntimeProcess) {}

  /** One step of a worker, retried while the connection fails; undefined when the run stopped meanwhile. */
  async step(url: string, options: Parameters<typeof api>[1]): Promise<ApiReply | undefined> {
    for (;;) {
      try {
        return await api(url, options);
      } catch {
        if (!this.running) return undefined;
        this.counts.connectionRetries++;
        await pause(20);
      }
    }
  }

  /** Counts a payment's answer: 201 completed, 409 or 422 for a re-POST after a lost connection, anything else unexpected. */
  countPayment(paid: ApiReply): void {
    if (paid.status === 201) this.counts.completed++;
    else if (paid.status === 409) this.counts.inUse++;
    else if (paid.status === 422) this.counts.alreadyPaid++;
    else this.unexpected.push(`payment → ${paid.status} ${paid.text}`);
  }

  /**
   * Kills the runtime with SIGKILL `kills` times, each after a random pause of `lowMs` to
   * `highMs`, and restarts it on the same data each time (`restarted` sees each new process).
   */
  async killAndRestart(kills: number, lowMs: number, highMs: number, restarted: (runtime: RuntimeProcess) => void = () => {}): Promise<void> {
    for (let kill = 0; kill < kills; kill++) {
      await pause(randomBetween(lowMs, highMs));
      await this.runtime.kill9();
      this.counts.kills++;
      this.runtime = await this.runtime.restart();
      restarted(this.runtime);
    }
  }

  /** Lets the workers complete one more payment each on the last runtime (10 s at most), then stops them and waits for them. */
  async stop(workers: readonly Promise<unknown>[]): Promise<void> {
    const target = this.counts.completed + workers.length;
    const until = Date.now() + 10_000;
    while (this.counts.completed < target && Date.now() < until) await pause(50);
    this.running = false;
    await Promise.all(workers);
  }
}

/** Checks the invariants every 500 ms until `check` finds no violation or `settleMs` is over; answers the last violations. */
export async function settle(settleMs: number, check: () => Promise<string[]>): Promise<string[]> {
  const settleBy = Date.now() + settleMs;
  for (;;) {
    const violations = await check();
    if (violations.length === 0 || Date.now() > settleBy) return violations;
    await pause(500);
  }
}
