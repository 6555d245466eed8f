/**
 * The order confirmation email (commerce issue, licenses.md §9): rendered from the stored
 * order, sent through the email port (SES or the local outbox) once no license of the order
 * is pending, else held; the order records which (`confirmation_email`), so the licenses
 * capability can release a held one.
 */
import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '../../auth/auths';
import { nowMs } from '../../clock';
import { queryItems } from '../../store/query';
import { findRecord } from '../../store/records';
import { readGeneralSettings } from '../../accounts/settings';
import { readTechnicalSettingsCached } from '../../accounts/settings-cache';
import type { Platform } from '../../platform/ports';
import { logger } from '../../logging';
import { db, table } from '../../store/client';
import type { RecordScope } from '../../store/records';
import type { CartRecord } from '../carts/types';
import { confirmationReady, renderOrderConfirmation, type ConfirmationOrder } from '../emails';
import { orderDeclaration, type OrderRecord } from '../orders/orders';

/** Carts as the store keys them. */
const CARTS = { name: 'cart', collection: 'carts', scope: 'mode' as const, idField: 'cart_id' };

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

/** Where due confirmation emails are found (gsi3 across accounts). */
const DUE_PARTITION = 'due#confirmation-email';
/** How long after the payment the sweep takes over an email the payment request did not send. */
export const CONFIRMATION_GRACE_MS = 5 * 60_000;

function dueKey(order: Pick<OrderRecord, 'account_id' | 'mode' | 'order_id'>) {
  return { pk: `${order.account_id}#${order.mode}#due-confirmation#${order.order_id}`, sk: 'due' };
}

/**
 * The transaction entry, written with the order, that makes the email due: if the request
 * that paid dies before sending, the sweep sends it after the grace period.
 */
export function confirmationDueWrite(order: OrderRecord): TransactItem {
  const due = new Date(order.created_ms + CONFIRMATION_GRACE_MS).toISOString();
  return {
    Put: {
      TableName: table(),
      Item: {
        ...dueKey(order),
        account_id: order.account_id,
        mode: order.mode,
        order_id: order.order_id,
        cart_id: order.cart_id,
        gsi3pk: DUE_PARTITION,
        gsi3sk: `${due}#${order.account_id}#${order.mode}#${order.order_id}`,
        ttl: Math.ceil((order.created_ms + 30 * 24 * 3600_000) / 1000),
      },
    },
  };
}

/** Sends every due confirmation email (the scheduled job); returns how many were handled. */
export async function sweepConfirmationEmails(platform: Platform, now = nowMs()): Promise<number> {
  const due = await queryItems({
    TableName: table(),
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :now',
    ExpressionAttributeValues: { ':pk': DUE_PARTITION, ':now': `${new Date(now).toISOString()}#~` },
  });
  let handled = 0;
  for (const marker of due) {
    const scope = { accountId: marker.account_id as string, mode: marker.mode as 'live' | 'test' };
    const order = await findRecord(orderDeclaration, scope, marker.order_id as string);
    const cart = marker.cart_id ? ((await findRecord(CARTS as never, scope, marker.cart_id as string)) as CartRecord | undefined) : undefined;
    if (!order || !cart) {
      await db().send(new DeleteCommand({ TableName: table(), Key: { pk: marker.pk as string, sk: 'due' } }));
      continue;
    }
    if (order.confirmation_email === 'pending' && (await sendOrderConfirmation(platform, order, cart, scope))) handled++;
    else if (order.confirmation_email !== 'pending') await db().send(new DeleteCommand({ TableName: table(), Key: { pk: marker.pk as string, sk: 'due' } }));
  }
  return handled;
}

/**
 * Sends (or holds) the confirmation of a new order, records the outcome on the order and
 * clears its due marker. Runs after the order is committed; a failure to send is logged and
 * leaves `confirmation_email: pending` for the sweep. Returns whether it completed.
 */
export async function sendOrderConfirmation(platform: Platform, order: OrderRecord, cart: CartRecord, scope: RecordScope): Promise<boolean> {
  const view = confirmationOrder(order, cart);
  if (!view) {
    await db().send(new DeleteCommand({ TableName: table(), Key: dueKey(order) }));
    return false;
  }
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
      await platform.email.send({
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
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table(),
              Key: { pk: order.pk, sk: order.sk },
              UpdateExpression: 'SET confirmation_email = :state',
              ExpressionAttributeValues: { ':state': ready ? 'sent' : 'held' },
            },
          },
          { Delete: { TableName: table(), Key: dueKey(order) } },
        ],
      }),
    );
    return true;
  } catch (error) {
    logger.error('Order confirmation not sent', { orderId: order.order_id, error: error as Error });
    return false;
  }
}
