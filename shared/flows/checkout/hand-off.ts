/**
 * The paying request's hand-off of a Stripe payment it leaves `initiated` (3-D Secure,
 * processing, or no answer in time: commerce.md §4.7). From then on the client's commit,
 * Stripe's webhook and the recovery sweep may settle it, all through `recoverPayment`; before
 * it, only the paying request (or recovery once the cart's lock lapsed) does, so a webhook that
 * overtakes the paying request's own answer cannot race its completion.
 */
import { reachWrite, tokenRecordChanged } from '../../modules/identity';
import type { Principal } from '../../core/access/principal';
import { updatePayment, type PaymentRecord } from '../../modules/payments';
import type { RecordScope } from '../../store/entity';
import { writeOne } from '../../store/transact';
import { named } from './entries';

/**
 * Stores the gateway's answer on the still-initiated payment and marks it handed off; answers
 * the payment as stored (perhaps already settled by others). A limited payer (`principal`) is
 * given reach over the payment first (commerce.md §0.1 "Payment it created: read", §4.6: it
 * commits it after 3-D Secure); reach that follows from its sale, so not a counted binding.
 */
export async function handOffPayment(scope: RecordScope, answered: PaymentRecord, principal?: Principal): Promise<PaymentRecord> {
  const path = `payments/${answered.payment_id}`;
  const reach = principal && !principal.record.reach?.includes(path) ? named('token.reach', reachWrite(principal, [path])) : undefined;
  if (reach && principal) {
    await writeOne(reach);
    const withReach = (record: Principal['record']) => ({ ...record, reach: [...(record.reach ?? []), path] });
    tokenRecordChanged(principal.tokenHash, withReach);
    principal.record = withReach(principal.record);
  }
  return updatePayment(scope, answered.payment_id, (current) => {
    if (current.status !== 'initiated' || !current.gateway_charge) return { next: current, write: false };
    return {
      next: {
        ...current,
        gateway_transaction_id: answered.gateway_transaction_id,
        response_data: answered.response_data,
        payment_method: answered.payment_method,
        gateway_charge: { ...current.gateway_charge, handed_off: true },
      },
    };
  });
}
