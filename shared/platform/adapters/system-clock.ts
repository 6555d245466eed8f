/** The system clock: the `Clock` of the cloud platform and of a local runtime not in manual mode. */
import type { Clock } from '../ports';

/** The system clock (`Date.now()`). */
export const systemClock: Clock = { nowMs: () => Date.now() };
