/**
 * Billing periods of a subscription (commerce.md §10.2): computed in UTC from the anchor (the
 * start of the first period), so month and year steps keep the anchor day, clamped to shorter
 * months (bought on 31 January: 28/29 February, 31 March, 30 April), and a short month never
 * shifts the later ones.
 */
import { DateTime } from 'luxon';
import type { SubscriptionPlan } from '../catalog';

/** The end of period `n` (1-based: period 1 ends at the second billing) of a plan anchored at `anchorMs`. */
export function periodEnd(anchorMs: number, plan: Pick<SubscriptionPlan, 'billing_interval' | 'billing_interval_unit'>, n: number): number {
  const steps = plan.billing_interval * n;
  const anchor = DateTime.fromMillis(anchorMs, { zone: 'utc' });
  return anchor.plus({ [`${plan.billing_interval_unit}s`]: steps }).toMillis();
}

/** The start of period `n` (period 1 starts at the anchor). */
export function periodStart(anchorMs: number, plan: Pick<SubscriptionPlan, 'billing_interval' | 'billing_interval_unit'>, n: number): number {
  return n <= 1 ? anchorMs : periodEnd(anchorMs, plan, n - 1);
}

/** Milliseconds in a retry day (retries are counted in days after the period end). */
export const DAY_MS = 86_400_000;
