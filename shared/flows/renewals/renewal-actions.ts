/**
 * `POST /subscriptions/{subscription_id}/fast_forward` (commerce.md §10.3, test mode only): runs
 * the next renewal attempt now, through the same renewal step the sweep runs (held with
 * `holdDue`, so it never runs beside a sweep's run of the same subscription). Live mode: 409
 * `feature_not_enabled`. A subscription with nothing more to charge: 422 `invalid_state`.
 */
import { InUseError, InvalidStateError } from '../../http/errors';
import type { ApiContext, ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { renderResource } from '../../rest/render';
import { holdDue } from '../../work/due-work-store';
import { runHere } from '../../work/runner';
import { FeatureNotEnabledError } from '../../modules/payments';
import { findSubscription, readSubscription, RENEWAL_KIND, subscriptionDeclaration } from '../../modules/subscriptions';
import { RENEWAL_LEASE_MS, renewSubscription, subscriptionRenewalWork } from './renew-subscription';

/** `POST /subscriptions/{subscription_id}/fast_forward`. */
export async function fastForwardSubscriptionAction(context: ApiContext): Promise<ApiResult> {
  const { scope, render } = await actionScope(context);
  // Live mode never runs one (whichever subscription is named).
  if (scope.mode === 'live') throw new FeatureNotEnabledError('fast_forward is available in test mode only.', null);
  const subscription = await readSubscription(context, scope);
  if (subscription.status !== 'active' || subscription.cancel_at_period_end || subscription.next_billing_ms === null) {
    throw new InvalidStateError('The subscription has no renewal to run.', { reason: subscription.status === 'active' ? 'nothing_due' : subscription.status });
  }
  const platform = context.platform;
  const hold = await holdDue(RENEWAL_KIND, scope, subscription.subscription_id, platform.clock.nowMs(), RENEWAL_LEASE_MS);
  if (!hold) throw new InUseError('A renewal of this subscription is running.', { reason: 'in_progress' });
  // The same step the sweep runs, forced; a failure puts the record back (runner.ts) and answers the state it left.
  await runHere(platform, { ...subscriptionRenewalWork, run: (ports, claim) => renewSubscription(ports, claim, true).then(() => undefined) }, hold.claim);
  const after = (await findSubscription(scope, subscription.subscription_id)) ?? subscription;
  return { status: 200, body: await renderResource(subscriptionDeclaration, after, render) };
}
