/**
 * An order's receipt (conventions.md §4, commerce.md §5): the order with its customer, its
 * payment, the refunds made so far (§7) and its license codes with their instructions
 * (licenses.md §7), mapped onto the printable document. `readOrderReceipt` gathers the records
 * in one round of reads after the order; `orderReceiptDocument` is the pure mapping.
 */
import { readGeneralSettingsCached } from '../../modules/accounts';
import { findCustomerRecord, type CustomerRecord } from '../../modules/customers';
import { findLicenseServices, findLicenses, licenseHtmlToText, type LicenseRecord, type LicenseServiceRecord } from '../../modules/licenses';
import type { OrderItemRecord, OrderRecord } from '../../modules/orders';
import { payments, type PaymentRecord } from '../../modules/payments';
import { refundsOfPayment, type RefundRecord } from '../../modules/refunds';
import type { RecordScope } from '../../store/records';
import { addressLines, instructionsToText, tidyText } from '../checkout/emails';
import type { PrintableBalance, PrintableDocument, PrintableLicense } from './printable-document';

/** The account facts a receipt prints as its seller (`/settings/general`). */
export interface SellerFacts {
  company_name: string | null;
  support_email: string | null;
  support_website: string | null;
}

/** Everything a receipt shows besides the order itself. */
export interface OrderReceiptFacts {
  order: OrderRecord;
  customer: CustomerRecord | undefined;
  payment: PaymentRecord | undefined;
  /** Settled refunds of the order's payment; only `completed` ones print. */
  refunds: readonly RefundRecord[];
  licenses: ReadonlyMap<string, LicenseRecord>;
  /** The services of licensed items that have no code yet (their label and instructions print). */
  services: ReadonlyMap<string, LicenseServiceRecord>;
  seller: SellerFacts;
  /** Numbers, money and dates: the locale and zone they are written in. */
  locale: string;
  zone: string;
}

/**
 * Reads what `order`'s receipt shows: its customer, payment, refunds, licenses (and the services
 * of items still without a code) and the account's general settings, all at once.
 */
export async function readOrderReceipt(scope: RecordScope, order: OrderRecord, rendering: { locale: string; zone: string }): Promise<OrderReceiptFacts> {
  const licenseIds = order.items.flatMap((item) => (item.license ? [item.license] : []));
  const serviceIds = [...new Set(order.items.flatMap((item) => (!item.license && item.license_service_id ? [item.license_service_id] : [])))];
  const [customer, payment, refunds, licenses, services, seller] = await Promise.all([
    findCustomerRecord(scope, order.customer_id),
    payments.find(scope, order.payment_id),
    refundsOfPayment(scope, order.payment_id),
    licenseIds.length ? findLicenses(scope, licenseIds) : new Map<string, LicenseRecord>(),
    serviceIds.length ? findLicenseServices(scope, serviceIds) : new Map<string, LicenseServiceRecord>(),
    readGeneralSettingsCached(scope.accountId),
  ]);
  return { order, customer, payment, refunds, licenses, services, seller, ...rendering };
}

/** `Paid`, `Paid, partly refunded`, `Refunded` (commerce.md §5.6). */
function statusOf(order: OrderRecord): string {
  if (order.payment_status === 'refunded') return 'Refunded';
  if (order.payment_status === 'pending') return 'Payment pending';
  return order.total_refunded > 0 ? 'Paid, partly refunded' : 'Paid';
}

/** The codes of one item's license, one per line as stored (`text`, else the HTML's plain form). */
function codesOf(license: LicenseRecord): string[] {
  const text = license.text ? tidyText(license.text) : tidyText(licenseHtmlToText(license.html ?? ''));
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** The license part of one item: its codes, or its service's label and instructions with a note while it has none. */
function licenseOf(item: OrderItemRecord, facts: OrderReceiptFacts): PrintableLicense | null {
  const license = item.license ? facts.licenses.get(item.license) : undefined;
  if (license) {
    const codes = codesOf(license);
    return {
      itemName: item.name,
      label: license.label,
      codes,
      instructions: license.instructions ? instructionsToText(license.instructions) || null : null,
      ...(codes.length ? {} : { note: 'The code for this item will follow by email.' }),
    };
  }
  if (!item.license_service_id && !item.license_pending) return null;
  const service = item.license_service_id ? facts.services.get(item.license_service_id) : undefined;
  return {
    itemName: item.name,
    label: service?.label ?? 'License',
    codes: [],
    instructions: service?.instructions ? instructionsToText(service.instructions) || null : null,
    note: 'The code for this item will follow by email.',
  };
}

/** What was paid and refunded: `Paid`, and with refunds `Refunded` and `Net paid`. */
function balanceOf(order: OrderRecord, paid: number): PrintableBalance[] {
  if (order.total_refunded <= 0) return [{ label: 'Paid', amount: paid, strong: true }];
  return [
    { label: 'Paid', amount: paid },
    { label: 'Refunded so far', amount: -order.total_refunded },
    // Both are stored rounded to the currency, so the difference only needs the float noise removed.
    { label: 'Net paid', amount: Number((paid - order.total_refunded).toFixed(6)), strong: true },
  ];
}

/**
 * The printable receipt of an order.
 *
 * @example const pdf = await renderDocumentPdf(orderReceiptDocument(await readOrderReceipt(scope, order, { locale, zone })));
 */
export function orderReceiptDocument(facts: OrderReceiptFacts): PrintableDocument {
  const { order, customer, payment } = facts;
  const { totals } = order;
  const method = payment?.payment_method?.data.label ?? (payment ? 'Card' : null);
  const ships = order.items.some((item) => item.type === 'physical');
  const shipTo = ships && customer ? addressLines(customer.shipping_address) : [];
  const paid = payment?.total ?? totals.total;
  const support = [facts.seller.support_email, facts.seller.support_website].filter(Boolean).join(' · ');
  return {
    title: 'Receipt',
    number: order.order_id,
    test: order.mode === 'test',
    currency: totals.currency,
    locale: facts.locale,
    zone: facts.zone,
    dates: [{ label: 'Date', dateMs: order.created_ms }],
    facts: [
      { label: 'Status', value: statusOf(order) },
      { label: 'Payment', value: method },
      ...(order.promotion_code ? [{ label: 'Promotion', value: order.promotion_code }] : []),
    ],
    seller: { name: facts.seller.company_name, email: facts.seller.support_email, website: facts.seller.support_website },
    buyer: customer
      ? { name: customer.name, companyName: customer.company_name, email: customer.email, phone: customer.phone, taxNumber: customer.tax_number, address: addressLines({ ...customer.billing_address, name: null }) }
      : null,
    shipTo: shipTo.length ? shipTo : null,
    lines: order.items.map((item) => ({
      name: item.name,
      reference: item.product_id,
      quantity: item.quantity,
      unitPrice: item.price_original,
      discount: item.discount,
      taxRate: item.tax_rate,
      tax: item.tax,
      amount: item.subtotal,
    })),
    shipping: order.shipping_item
      ? { name: order.shipping_item.name, amount: order.shipping_item.subtotal, taxRate: order.shipping_item.tax_rate, tax: order.shipping_item.tax }
      : null,
    totals: {
      subtotalOriginal: totals.subtotal_original,
      discount: totals.discount,
      promotionCode: order.promotion_code,
      subtotal: totals.subtotal,
      shipping: totals.shipping,
      tax: totals.tax,
      taxInclusive: totals.tax_inclusive,
      total: totals.total,
    },
    payments: payment ? [{ dateMs: payment.created_ms, method: method ?? 'Card', reference: payment.payment_id, amount: payment.total }] : [],
    refunds: facts.refunds
      .filter((refund) => refund.status === 'completed')
      .sort((a, b) => a.created_ms - b.created_ms)
      .map((refund) => ({
        dateMs: refund.created_ms,
        reference: refund.refund_id,
        reason: refund.reason,
        items: refund.items.map((item) => `${item.quantity} × ${item.name}`),
        amount: refund.total,
      })),
    balance: balanceOf(order, paid),
    licenses: order.items.flatMap((item) => licenseOf(item, facts) ?? []),
    footer: [
      support ? `Questions about this order? ${support}` : '',
      `Please mention order ${order.order_id}.`,
    ],
  };
}
