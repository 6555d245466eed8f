/**
 * A test-only hold on the built-in test gateway, local runtime only: with
 * `CARTWHEEL_GATEWAY_HOLD_FILE=<path>` every card authorization waits while that file exists,
 * so a test can keep payments in flight for as long as it needs (a stop in the middle of them)
 * without depending on machine load. `GET /_local/gateway/held` counts the charges waiting;
 * removing the file releases them. The cloud's platform (shared/app/platforms.ts) never wraps
 * its gateway, and nothing outside infra/local reads the variable.
 */
import { existsSync } from 'node:fs';
import type { PaymentGateway } from '../../shared/platform/ports';

/** How often a held charge looks for the file again. */
const POLL_MS = 10;

let waiting = 0;

/** Charges waiting on the hold file right now (`/_local/gateway/held`). */
export function heldCharges(): number {
  return waiting;
}

/** `gateway`, with each charge waiting while `holdFile` exists; `gateway` itself without a file. */
export function holdGateway(gateway: PaymentGateway, holdFile: string | undefined): PaymentGateway {
  if (!holdFile) return gateway;
  return {
    ...gateway,
    async charge(request) {
      if (existsSync(holdFile)) {
        waiting++;
        try {
          while (existsSync(holdFile)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        } finally {
          waiting--;
        }
      }
      return gateway.charge(request);
    },
  };
}
