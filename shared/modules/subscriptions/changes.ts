/**
 * The single-module changes of a subscription (commerce.md §10.3): cancel (now or at the period
 * end), un-cancel, and the update of its saved method and meta. Each is one versioned write; an
 * immediate cancel removes the renewal due work and records `subscription:cancelled` in the
 * same transaction, so a renewal run that read the subscription before commits nothing — unless
 * a run holds it (a renewal in flight, or one that died with its claim): the record then stays,
 * so that run (or the one that takes over after its lease) still records a charge it made
 * before the cancellation (flows/renewals/renew-subscription.ts) and then removes it.
 */
import { InvalidStateError } from '../../http/errors';
import type { RecordScope } from '../../store/entity';
import { doneEntry, findDue } from '../../work/due-work-store';
import { eventEntries } from '../events';
import type { SubscriptionRecord } from './records';
import { updateSubscription } from './subscription-store';

/** The due-work kind of a subscription's next billing (or period-end transition). */
export const RENEWAL_KIND = 'subscription-renewal' as const;

/** A version later than any the record had. */
function nextVersion(current: SubscriptionRecord, now: number): number {
  return Math.max(now, current.modified_ms + 1);
}

/**
 * Cancels an `active` subscription (else 422 invalid_state): at the period end (it stays active
 * with nothing more due, `date_cancelled` now) or now (`cancelled`, `date_ended` now).
 */
export async function cancelSubscription(scope: RecordScope, subscriptionId: string, atPeriodEnd: boolean, reason: string | null, now: number, read: () => Promise<SubscriptionRecord>): Promise<SubscriptionRecord> {
  // A renewal run holding the record may have charged already: it keeps the record to finish with.
  const inFlight = !atPeriodEnd && (await findDue(RENEWAL_KIND, scope, subscriptionId))?.claim_id != null;
  return updateSubscription(scope, subscriptionId, (current) => {
    if (current.status !== 'active') throw new InvalidStateError(`The subscription is ${current.status}.`, { reason: current.status });
    const modified = nextVersion(current, now);
    if (atPeriodEnd) {
      const next: SubscriptionRecord = { ...current, cancel_at_period_end: true, cancelled_ms: now, cancellation_reason: reason ?? current.cancellation_reason, next_billing_ms: null, modified_ms: modified };
      return { next };
    }
    const next: SubscriptionRecord = {
      ...current,
      status: 'cancelled',
      cancel_at_period_end: false,
      cancellation_reason: reason,
      cancelled_ms: now,
      ended_ms: now,
      next_billing_ms: null,
      in_grace_period: false,
      modified_ms: modified,
    };
    return {
      next,
      extra: [
        ...(inFlight ? [] : [doneEntry(RENEWAL_KIND, scope, subscriptionId)]),
        ...eventEntries(scope, [{ type: 'subscription:cancelled', resource: 'subscription', id: subscriptionId, record: next }], now),
      ],
    };
  }, read);
}

/** Clears a pending cancellation of an `active` subscription; with none pending, or another status, 422 invalid_state. */
export function uncancelSubscription(scope: RecordScope, subscriptionId: string, now: number, read: () => Promise<SubscriptionRecord>): Promise<SubscriptionRecord> {
  return updateSubscription(scope, subscriptionId, (current) => {
    if (current.status !== 'active') throw new InvalidStateError(`The subscription is ${current.status}.`, { reason: current.status });
    if (!current.cancel_at_period_end) throw new InvalidStateError('The subscription has no pending cancellation.', { reason: 'not_cancelled' });
    return { next: { ...current, ...resumed(current), modified_ms: nextVersion(current, now) } };
  }, read);
}

/**
 * What un-cancelling restores: the next billing (the period end, or the next retry while in
 * grace), unless the plan's last charge was made.
 */
function resumed(current: SubscriptionRecord): Partial<SubscriptionRecord> {
  const done = current.end_at_billing_count !== null && current.billing_count >= current.end_at_billing_count;
  return { cancel_at_period_end: false, cancelled_ms: null, cancellation_reason: null, next_billing_ms: done ? null : (current.retry_at_ms ?? current.period_end_ms) };
}

/** What an update changes (each present field). */
export interface SubscriptionChange {
  paymentMethodId?: string;
  meta?: unknown;
  uncancel?: boolean;
}

/** Applies an update; `uncancel` with nothing pending is no change (the update endpoint is lenient, unlike `/uncancel`). */
export function changeSubscription(scope: RecordScope, subscriptionId: string, change: SubscriptionChange, now: number, read: () => Promise<SubscriptionRecord>): Promise<SubscriptionRecord> {
  return updateSubscription(scope, subscriptionId, (current) => {
    const next: SubscriptionRecord = { ...current };
    if (change.paymentMethodId !== undefined) next.payment_method_id = change.paymentMethodId;
    if (change.meta !== undefined) next.meta = change.meta;
    if (change.uncancel && current.cancel_at_period_end) {
      if (current.status !== 'active') throw new InvalidStateError(`The subscription is ${current.status}.`, { reason: current.status });
      Object.assign(next, resumed(current));
    }
    const changed = JSON.stringify(next) !== JSON.stringify(current);
    if (!changed) return { next: current, write: false };
    return { next: { ...next, modified_ms: nextVersion(current, now) } };
  }, read);
}
