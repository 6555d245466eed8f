/**
 * The manual clock of the local runtime (local-runtime.md, "The manual clock"): with
 * `CARTWHEEL_CLOCK=manual` it is the `Clock` of the local platform, so every rule reads the time
 * from it, and it moves only when told (`POST /_local/clock`). Whatever listens for its moves
 * (the runtime's sweeps and schedules, outbound timeouts) runs at once, so what became due
 * happens promptly.
 */
import type { Clock } from '../../shared/platform/ports';

/** A clock that stands still until `set` moves it forward. */
export class ManualClock implements Clock {
  private currentMs: number;
  private readonly listeners = new Set<(nowMs: number) => void>();

  /** A manual clock standing at `startMs` (epoch milliseconds). */
  constructor(startMs: number) {
    this.currentMs = startMs;
  }

  /** The instant the clock stands at, in epoch milliseconds. */
  nowMs(): number {
    return this.currentMs;
  }

  /**
   * Moves the clock to `targetMs` (never backwards: an earlier target leaves it where it is),
   * tells every listener, and answers where it stands.
   */
  set(targetMs: number): number {
    if (!Number.isFinite(targetMs)) throw new Error('Invalid time');
    this.currentMs = Math.max(this.currentMs, Math.floor(targetMs));
    const current = this.currentMs;
    for (const listener of this.listeners) listener(current);
    return current;
  }

  /** Registers a callback run whenever the clock moves; answers the function that removes it. */
  onMoved(listener: (nowMs: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
