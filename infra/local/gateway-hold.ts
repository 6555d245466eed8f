/**
 * Test-only holds, local runtime only, so a test can keep work in flight for as long as it needs
 * (a stop or a `kill -9` in the middle of it) without depending on machine load:
 * - `CARTWHEEL_GATEWAY_HOLD_FILE=<path>`: every card authorization of the built-in test gateway
 *   waits while that file exists; `GET /_local/gateway/held` counts the charges waiting;
 * - `CARTWHEEL_GATEWAY_REFUND_HOLD_FILE=<path>`: every refund of the built-in test gateway waits
 *   while that file exists AFTER its ledger recorded it and before it answers (the moment a
 *   crash leaves money refunded and no refund record); `GET /_local/gateway/held` counts them;
 * - `CARTWHEEL_GATEWAY_CHARGED_HOLD_FILE=<path>`: every charge of the built-in test gateway waits
 *   while that file exists AFTER its ledger recorded it and before it answers (money taken, no
 *   payment recorded yet: a renewal killed there must not charge again); counted as `held_charged`;
 * - `CARTWHEEL_FUNCTION_DEPLOY_HOLD_FILE=<path>`: every hosted function deployment waits while
 *   that file exists (after its record and due work are committed).
 * Removing the file releases them. The cloud's platform (shared/app/platforms.ts) never wraps
 * its ports, and nothing outside infra/local reads the variables.
 */
import { existsSync } from 'node:fs';
import type { FunctionRunner, PaymentGateway } from '../../shared/platform/ports';

/** How often held work looks for its file again. */
const POLL_MS = 10;

/** What waits on a hold file right now, by kind. */
const held = { charges: 0, charged: 0, refunds: 0, deployments: 0 };

/** Waits while `file` exists (nothing to wait for without one), counted under `kind` meanwhile. */
async function waitWhileHeld(file: string | undefined, kind: keyof typeof held): Promise<void> {
  if (!file || !existsSync(file)) return;
  held[kind]++;
  try {
    while (existsSync(file)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  } finally {
    held[kind]--;
  }
}

/** Charges waiting on the hold file right now (`/_local/gateway/held`). */
export function heldCharges(): number {
  return held.charges;
}

/** Charges made and waiting on the charged-hold file right now (`/_local/gateway/held`). */
export function heldChargedCharges(): number {
  return held.charged;
}

/** Refunds made and waiting on the refund hold file right now (`/_local/gateway/held`). */
export function heldRefunds(): number {
  return held.refunds;
}

/**
 * `gateway`, with each charge waiting while `holdFile` exists and each refund, once made,
 * waiting while `refundHoldFile` exists; `gateway` itself without either.
 */
export function holdGateway(gateway: PaymentGateway, holdFile: string | undefined, refundHoldFile?: string, chargedHoldFile?: string): PaymentGateway {
  if (!holdFile && !refundHoldFile && !chargedHoldFile) return gateway;
  return {
    ...gateway,
    async refund(request) {
      const result = await gateway.refund(request);
      await waitWhileHeld(refundHoldFile, 'refunds');
      return result;
    },
    async charge(request) {
      await waitWhileHeld(holdFile, 'charges');
      const result = await gateway.charge(request);
      await waitWhileHeld(chargedHoldFile, 'charged');
      return result;
    },
  };
}

/** `runner`, with each deployment waiting while `holdFile` exists; `runner` itself without a file. */
export function holdDeployments<R extends FunctionRunner>(runner: R, holdFile: string | undefined): R {
  if (!holdFile) return runner;
  const deploy: FunctionRunner['deploy'] = async (deployment) => {
    await waitWhileHeld(holdFile, 'deployments');
    return runner.deploy(deployment);
  };
  return { ...runner, deploy };
}
