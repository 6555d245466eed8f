/**
 * The platform clock. Every time-dependent rule (token expiry, lockouts, retry schedules,
 * renewals, date shorthands) reads `now()` from here, never `Date.now()` directly, so the
 * local runtime's manual clock (local-runtime.md, "The manual clock") moves all of them.
 *
 * In the cloud and by default locally the clock is the system clock. The local runtime
 * switches it to manual mode with `useManualClock`; only it ever does.
 */
type Listener = (now: Date) => void;

interface ClockState {
  mode: 'system' | 'manual';
  /** Manual mode: the current instant in epoch milliseconds. */
  manualMs: number;
  listeners: Set<Listener>;
}

const state: ClockState = { mode: 'system', manualMs: 0, listeners: new Set() };

/** The current instant. */
export function now(): Date {
  return new Date(nowMs());
}

/** The current instant in epoch milliseconds. */
export function nowMs(): number {
  return state.mode === 'manual' ? state.manualMs : Date.now();
}

/** The current instant in whole epoch seconds (DynamoDB TTL and expiry attributes). */
export function nowSeconds(): number {
  return Math.floor(nowMs() / 1000);
}

/** `system` or `manual`. */
export function clockMode(): 'system' | 'manual' {
  return state.mode;
}

/** Switches to the manual clock, starting at `startMs` (local runtime only). */
export function useManualClock(startMs: number): void {
  state.mode = 'manual';
  state.manualMs = startMs;
}

/** Switches back to the system clock (tests). */
export function useSystemClock(): void {
  state.mode = 'system';
}

/**
 * Moves the manual clock to `targetMs` (never backwards) and tells every listener, so
 * whatever became due runs promptly. Throws in system mode.
 */
export function setManualTime(targetMs: number): Date {
  if (state.mode !== 'manual') throw new Error('The clock is not in manual mode');
  if (!Number.isFinite(targetMs)) throw new Error('Invalid time');
  state.manualMs = Math.max(state.manualMs, Math.floor(targetMs));
  const current = now();
  for (const listener of state.listeners) listener(current);
  return current;
}

/** Registers a callback run whenever the manual clock moves; returns an unsubscribe function. */
export function onClockMoved(listener: Listener): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}
