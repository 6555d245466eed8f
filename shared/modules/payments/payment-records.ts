/**
 * Payments as stored and shown (commerce.md §4.1): one record per attempt, cursor-listed by
 * date, and indexed by card fingerprint, currency and total for duplicate detection (§4.5).
 */
import type { Dated } from '../../store/keys';
import { declareResource } from '../../rest/declarations';
import { firstPageOf } from '../../rest/offset-list';
import { paymentsOfCustomer, paymentsOfInvoice } from './payment-store';
import type { RenderContext } from '../../rest/render-context';
import type { RecordScope } from '../../store/records';
import type { MaskedCard } from './cards';
import type { CustomerDetails } from '../customers';
import type { ChargeResponseData, SavedCardRef } from '../../platform/ports';

/** Payment statuses (§4.6). */
export type PaymentStatus = 'initiated' | 'pending' | 'completed' | 'failed' | 'refunded' | 'cancelled';

/** A stored payment. */
export interface PaymentRecord extends Dated {
  payment_id: string;
  account_id: string;
  mode: 'live' | 'test';
  status: PaymentStatus;
  currency: string;
  subtotal: number;
  shipping: number;
  tax: number;
  total: number;
  settlement_currency: string;
  settlement_subtotal: number;
  settlement_shipping: number;
  settlement_tax: number;
  settlement_total: number;
  total_refunded: number;
  reference: string | null;
  description: string | null;
  referrer: string | null;
  payment_method: { payment_method_id: string | null; type: 'credit_card'; data: MaskedCard } | null;
  response_data: ChargeResponseData;
  gateway_transaction_id: string | null;
  error_code: string | null;
  ip_address: string | null;
  customer_id: string | null;
  /**
   * A direct payment's payer sent as `customer` fields (commerce.md §4.3): the customer the
   * payment makes, under this id, when it completes; gone once it has (or once it failed).
   */
  payer?: { customer_id: string; details: CustomerDetails };
  cart_id: string | null;
  /** The invoice paid (commerce.md §9); absent on payments made before invoices existed. */
  invoice_id?: string | null;
  order_id: string | null;
  meta: unknown;
  /**
   * A charge through the account's Stripe connection (commerce.md §4.7): what asking Stripe
   * again needs (the token or saved references, never a card number; whether the card is being
   * saved; the metadata sent), and `handed_off` once the paying request left the payment
   * `initiated` for the commit, the webhook or recovery to settle.
   */
  gateway_charge?: GatewayCharge;
  /** The gateway's verdict, written right after the charge so a crashed completion can be finished. */
  gateway_outcome?: 'approved';
  /** A renewal payment's subscription (commerce.md §10.2); absent otherwise. */
  subscription_id?: string;
  /**
   * The saving-safe part of a new card (never the number or CVV), kept while a sale with a
   * subscription item is being paid, so its completion (or recovery) saves the card the
   * subscription charges (§4.2: always saved then). Gone once completed.
   */
  saved_card?: SavedCardRef;
  /** Card fingerprint (never the number), for duplicate detection. */
  fingerprint: string | null;
  /**
   * The hash of the limited token that made the payment (never shown), so a completion outside
   * its request (the commit, Stripe's webhook, the sweep: commerce.md §4.7) gives it the reach a
   * completion inside it gives (§0.1). Gone once the payment completed or failed.
   */
  payer_token?: string;
  /**
   * What refunds reserved of this payment (done or running), by money part, and how many times
   * it changed (`seq`): a refund reserves by writing it over the `seq` it read (payment-store.ts).
   * Absent until the first refund.
   */
  refund_ledger?: PaymentRefundLedger;
}

/** See `PaymentRecord.gateway_charge`. */
export interface GatewayCharge {
  gateway: 'stripe';
  /** The `pm_…` token charged, or null. */
  token: string | null;
  /** A saved card's Stripe customer and PaymentMethod, or null. */
  saved: { customer: string; method: string } | null;
  /** A raw card went to Stripe (it cannot be sent again: the number is gone). */
  raw: boolean;
  /** The card is kept at Stripe (`setup_future_usage`), with these customer details. */
  save: { email: string | null; name: string | null } | null;
  off_session: boolean;
  metadata: Record<string, string>;
  handed_off?: boolean;
  /** The Stripe customer and PaymentMethod a saved card became (from the charge's answer; not stored with the outcome). */
  saved_as?: { customer: string; method: string };
}

/** A payment's refund ledger (see `PaymentRecord.refund_ledger`). */
export interface PaymentRefundLedger {
  seq: number;
  /** `subtotal`, `shipping`, `tax`, `total` and their `settlement_` twins reserved so far. */
  reserved: Record<string, number>;
}

const SUCCESS: ReadonlySet<PaymentStatus> = new Set(['completed', 'pending', 'refunded']);
const AMOUNTS = ['subtotal', 'shipping', 'tax', 'total', 'total_refunded'] as const;

/** The payment declaration (REST conventions engine). */
export const paymentDeclaration = declareResource<PaymentRecord>({
  name: 'payment',
  collection: 'payments',
  idField: 'payment_id',
  permission: 'payments',
  scope: 'mode',
  links: { customer: 'customer', order: 'order', cart: 'cart', invoice: 'invoice', subscription: 'subscription' },
  // `refunds` expands to the first page of GET /payments/{id}/refunds (the refunds module lists them).
  subCollections: { refunds: { resource: 'refund' } },
  // Customer scope reads its customer's payments (commerce.md §0.1).
  customerOf: (payment) => payment.customer_id,
  // `customer.payments` expands to the first page of GET /customers/{id}/payments.
  // `invoice.payments` expands to the first page of GET /invoices/{id}/payments.
  listedUnder: {
    customer: async (customerId, context) => firstPageOf(await paymentsOfCustomer({ accountId: context.accountId, mode: context.mode }, customerId)),
    invoice: async (invoiceId, context) => firstPageOf(await paymentsOfInvoice({ accountId: context.accountId, mode: context.mode }, invoiceId)),
  },
  formatted: {
    money: {
      ...Object.fromEntries(AMOUNTS.map((name) => [name, 'currency'])),
      settlement_subtotal: 'settlement_currency',
      settlement_shipping: 'settlement_currency',
      settlement_tax: 'settlement_currency',
      settlement_total: 'settlement_currency',
    },
    dates: ['date_created', 'date_modified'],
  },
  idOf: (payment) => payment.payment_id,
  toJson(payment, context: RenderContext) {
    const url = context.url(`payments/${payment.payment_id}`);
    return {
      object: 'payment',
      url,
      payment_id: payment.payment_id,
      account_id: payment.account_id,
      test: payment.mode === 'test',
      status: payment.status,
      success: SUCCESS.has(payment.status),
      currency: payment.currency,
      subtotal: payment.subtotal,
      shipping: payment.shipping,
      tax: payment.tax,
      total: payment.total,
      total_refunded: payment.total_refunded,
      settlement_currency: payment.settlement_currency,
      settlement_subtotal: payment.settlement_subtotal,
      settlement_shipping: payment.settlement_shipping,
      settlement_tax: payment.settlement_tax,
      settlement_total: payment.settlement_total,
      reference: payment.reference,
      description: payment.description,
      referrer: payment.referrer,
      payment_method: payment.payment_method
        ? {
            object: 'payment_method',
            payment_method_id: payment.payment_method.payment_method_id,
            url: payment.payment_method.payment_method_id && payment.customer_id
              ? context.url(`customers/${payment.customer_id}/payment_methods/${payment.payment_method.payment_method_id}`)
              : null,
            type: payment.payment_method.type,
            data: payment.payment_method.data,
          }
        : null,
      response_data: payment.response_data,
      gateway_transaction_id: payment.gateway_transaction_id,
      error_code: payment.error_code,
      ip_address: payment.ip_address,
      customer: payment.customer_id ? context.url(`customers/${payment.customer_id}`) : null,
      cart: payment.cart_id ? context.url(`carts/${payment.cart_id}`) : null,
      invoice: payment.invoice_id ? context.url(`invoices/${payment.invoice_id}`) : null,
      order: payment.order_id ? context.url(`orders/${payment.order_id}`) : null,
      subscription: payment.subscription_id ? context.url(`subscriptions/${payment.subscription_id}`) : null,
      refunds: `${url}/refunds`,
      meta: payment.meta ?? null,
      date_created: context.date(payment.created_ms),
      date_modified: context.date(payment.modified_ms),
    };
  },
});

/** A new payment record in status `initiated`, created at `now` (epoch ms). */
export function newPaymentRecord(scope: RecordScope, paymentId: string, fields: Omit<PaymentRecord, 'payment_id' | 'account_id' | 'mode' | 'created_ms' | 'modified_ms'>, now: number): PaymentRecord {
  return {
    payment_id: paymentId,
    account_id: scope.accountId,
    mode: scope.mode,
    ...fields,
    created_ms: now,
    modified_ms: now,
  };
}
