/**
 * The order confirmation email (commerce issue, licenses.md §9): rendered from the stored
 * order, sent through the email port (SES or the local outbox) once no license of the order
 * is pending, else held; the order records which (`confirmation_email`), so the licenses
 * capability can release a held one.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readGeneralSettings } from '../../accounts/settings';
import { readTechnicalSettingsCached } from '../../accounts/settings-cache';
import { sendEmail } from '../../email';
import { logger } from '../../logging';
import { db, table } from '../../store/client';
import type { RecordScope } from '../../store/records';
import type { CartRecord } from '../carts/types';
import { confirmationReady, renderOrderConfirmation, type ConfirmationOrder } from '../emails';
import type { OrderRecord } from '../orders/orders';

/** The email's view of an order. */
function confirmationOrder(order: OrderRecord, cart: CartRecord): ConfirmationOrder | undefined {
  const email = cart.customer.email;
  if (!email) return undefined;
  return {
    order_id: order.order_id,
    date_created_ms: order.created_ms,
    currency: order.totals.currency,
    subtotal: order.totals.subtotal,
    shipping: order.totals.shipping,
    discount: order.totals.discount,
    tax: order.totals.tax,
    total: order.totals.total,
    tax_inclusive: order.totals.tax_inclusive,
    promotion_code: order.promotion_code,
    items: order.items.map((item) => ({
      item_id: item.item_id,
      name: item.name,
      quantity: item.quantity,
      price: item.price,
      total: item.total,
      subtotal: item.subtotal,
      type: item.type,
      license: null,
      license_pending: item.license_pending,
    })),
    shipping_item: order.shipping_item ? { name: order.shipping_item.name, total: order.shipping_item.total } : null,
    customer: { name: cart.customer.name, email, locale: null },
    billing_address: cart.customer.billing_address,
  };
}

/**
 * Sends (or holds) the confirmation of a new order and records the outcome. Runs after the
 * order is committed; a failure to send is logged and leaves `confirmation_email: pending`.
 */
export async function sendOrderConfirmation(order: OrderRecord, cart: CartRecord, scope: RecordScope): Promise<void> {
  const view = confirmationOrder(order, cart);
  if (!view) return;
  try {
    const ready = confirmationReady(view);
    if (ready) {
      const [technical, general] = await Promise.all([readTechnicalSettingsCached(scope.accountId), readGeneralSettings(scope.accountId)]);
      const rendered = renderOrderConfirmation(view, {
        companyName: general.company_name ?? 'Your shop',
        supportEmail: general.support_email ?? null,
        accountLocale: technical?.locale ?? 'en-US',
        zone: technical?.timezone ?? 'UTC',
        test: scope.mode === 'test',
      });
      await sendEmail({
        to: view.customer.email,
        ...(general.notification_from_addresses?.[0] ? { from: general.notification_from_addresses[0] } : {}),
        subject: rendered.subject,
        html: rendered.html,
        text: rendered.text,
        kind: 'order_confirmation',
        orderId: order.order_id,
      });
    }
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: order.pk, sk: order.sk },
        UpdateExpression: 'SET confirmation_email = :state',
        ExpressionAttributeValues: { ':state': ready ? 'sent' : 'held' },
      }),
    );
  } catch (error) {
    logger.error('Order confirmation not sent', { orderId: order.order_id, error: error as Error });
  }
}
