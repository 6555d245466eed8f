/**
 * Direct payments (`POST /payments`, commerce.md §4.3): a charge with no sale; it creates no
 * order. A limited token that makes one is bound to it (one counted binding).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { readPaymentSettingsCached } from '../../accounts/settings-cache';
import { assertBindingCapacity, BindingLimitExceededError, bindingWrite, bindingWritten } from '../../auth/bindings';
import type { TransactItem } from '../../auth/auths';
import type { Principal } from '../../auth/principal';
import { nowMs } from '../../clock';
import { customerDeclaration } from '../../customers/customers';
import type { ApiResult } from '../../http/types';
import { newId } from '../../ids';
import { invalid, metaValue, numberValue, optionalString, sends } from '../../rest/input';
import { roundMoney } from '../../rest/money';
import { renderResource } from '../../rest/render';
import type { RenderContext } from '../../rest/render-context';
import { db, table } from '../../store/client';
import { getRecord, type RecordScope } from '../../store/records';
import { convert } from '../../catalog/pricing';
import { eventWrites } from '../events/emit';
import { FeatureNotEnabledError, gatewayError, gatewayErrorCode } from '../payments/errors';
import { newPaymentRecord, paymentDeclaration, type PaymentRecord } from '../payments/payment-records';
import { testGateway } from '../payments/test-gateway';
import { assertNotDuplicate, parsePaymentMethod, saveCardAfterPayment } from './pay-cart';

/** `POST /payments`. */
export async function payDirect(principal: Principal, body: Record<string, unknown>, render: RenderContext, ipAddress: string): Promise<ApiResult> {
  const scope: RecordScope = { accountId: principal.accountId, mode: principal.mode };
  const settings = await readPaymentSettingsCached(scope.accountId);
  const now = nowMs();

  if (typeof body.currency !== 'string' || !body.currency) invalid('currency', 'The property currency is required.', 'required');
  const currency = body.currency.toUpperCase();
  if (!settings.currencies.includes(currency)) invalid('currency', `The currency ${body.currency} is not enabled for this account.`);
  const amount = (name: string) => (sends(body, name) && body[name] !== null ? roundMoney(numberValue(body[name], name, { min: 0 }), currency) : undefined);
  const subtotalSent = amount('subtotal');
  const shipping = amount('shipping') ?? 0;
  const tax = amount('tax') ?? 0;
  const totalSent = amount('total');
  if (totalSent === undefined && subtotalSent === undefined) invalid('total', 'Send total, or subtotal with optional shipping and tax.', 'required');
  const subtotal = subtotalSent ?? roundMoney((totalSent as number) - shipping - tax, currency);
  const total = totalSent ?? roundMoney(subtotal + shipping + tax, currency);
  if (subtotalSent !== undefined && totalSent !== undefined && roundMoney(subtotal + shipping + tax, currency) !== total) {
    invalid('total', 'The total disagrees with subtotal + shipping + tax.', 'conflict');
  }
  const reference = optionalString(body.reference, 'reference', 200);
  const description = optionalString(body.description, 'description', 1000);
  const referrer = optionalString(body.referrer, 'referrer', 200);
  const meta = metaValue(body.meta);
  let customerId: string | null = null;
  if (typeof body.customer_id === 'string' && body.customer_id && principal.kind !== 'limited') {
    customerId = body.customer_id;
    await getRecord(customerDeclaration, scope, customerId).catch((error: { status?: number }) => {
      if (error.status === 404) invalid('customer_id', `The customer ${customerId} does not exist.`, 'not_found');
      throw error;
    });
  }
  const method = total > 0 ? await parsePaymentMethod(body.payment_method, now, scope, customerId) : undefined;
  const card = method?.card;
  const fingerprint = method?.fingerprint ?? null;
  if (fingerprint && body.allow_duplicate !== true) await assertNotDuplicate(scope, fingerprint, currency, total, settings.duplicate_payment_timeout, now);
  if (scope.mode === 'live' && total > 0) throw new FeatureNotEnabledError('Live card payments need a payment gateway integration, which this deployment does not have yet.', null);

  const paymentId = newId();
  assertBindingCapacity(principal, `payments/${paymentId}`);
  const settlement = (value: number) => convert(value, currency, settings.settlement_currency, settings);
  const initiated = newPaymentRecord(scope, paymentId, {
    status: 'initiated', currency, subtotal, shipping, tax, total,
    settlement_currency: settings.settlement_currency,
    settlement_subtotal: settlement(subtotal), settlement_shipping: settlement(shipping), settlement_tax: settlement(tax), settlement_total: settlement(total),
    total_refunded: 0, reference, description, referrer,
    payment_method: method ? { payment_method_id: method.paymentMethodId, type: 'credit_card', data: method.data } : null,
    response_data: { authorization_code: null, avs_match: null, cvv_match: null, message: null },
    gateway_transaction_id: null, error_code: null, ip_address: ipAddress, customer_id: customerId, cart_id: null, order_id: null, meta, fingerprint,
  });
  const binding = bindingWrite(principal, `payments/${paymentId}`);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table(), Item: initiated, ConditionExpression: 'attribute_not_exists(pk)' } }, ...(binding ? [binding] : [])],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') throw new BindingLimitExceededError();
    throw error;
  }
  if (binding) bindingWritten(principal);

  const result = card
    ? await testGateway.charge({
        amount: total, currency, card,
        billingPostalCode: (card.billingAddress?.postal_code as string | null | undefined) ?? null,
        ignoreBadCvv: settings.ignore_bad_cvv, ignoreBadAvs: settings.ignore_bad_avs,
      })
    : { outcome: 'approved' as const, transactionId: null, responseData: { authorization_code: null, avs_match: null, cvv_match: null, message: 'Nothing to charge' } };
  const approved = result.outcome === 'approved';
  const finished: PaymentRecord = {
    ...initiated,
    status: approved ? 'completed' : 'failed',
    error_code: result.outcome === 'approved' ? null : gatewayErrorCode(result.outcome),
    gateway_transaction_id: result.transactionId,
    response_data: result.responseData,
    modified_ms: nowMs(),
  };
  const events = approved
    ? [{ type: 'payment:created_success', resource: 'payment', id: paymentId }, { type: 'payment:completed', resource: 'payment', id: paymentId }]
    : [{ type: 'payment:created_failure', resource: 'payment', id: paymentId }];
  const writes: TransactItem[] = [
    { Put: { TableName: table(), Item: finished, ConditionExpression: '#status = :initiated', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':initiated': 'initiated' } } },
    ...eventWrites(scope, events, finished.modified_ms),
  ];
  await db().send(new TransactWriteCommand({ TransactItems: writes }));
  if (!approved) throw gatewayError(result.outcome as Exclude<typeof result.outcome, 'approved'>, { payment: await renderResource(paymentDeclaration, finished, render) });
  const saved = await saveCardAfterPayment(scope, method, finished, settings.allow_save_cards);
  return { status: 201, body: await renderResource(paymentDeclaration, saved, render), location: render.url(`payments/${paymentId}`) };
}

