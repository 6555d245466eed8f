/** The events.md §4.1 example body, as the delivery side would build it, and abridged forms of it. */
import { notificationTree } from '../../../../shared/flows/notifications/body/body';
import type { NotificationTree } from '../../../../shared/flows/notifications/body/types';

/** The full §4.1 example. */
export function exampleTree(): NotificationTree {
  return notificationTree({
    eventId: '170BDJ1VSRM9',
    fingerprint: 'J8PNA5RNMKGE',
    type: 'order:created',
    dateCreated: '2026-11-21T11:15:02+01:00',
    test: false,
    accountId: 'XG5908XMX3MH',
    environmentVariables: { ERP_CHANNEL: 'web' },
    data: {
      object: 'order',
      url: 'https://api.example.test/api/v1/orders/3HE81X8T8P1B',
      order_id: '3HE81X8T8P1B',
      payment_status: 'completed',
      currency: 'USD',
      total: 49.0,
      promotion: null,
      customer: { object: 'customer', customer_id: '73HHWERD1E41', name: 'Ana Ruiz', email: 'ana@example.org' },
      items: [
        { object: 'order_item', item_id: 'photo-editor-pro', product_id: 'photo-editor-pro', name: 'Photo Editor Pro', quantity: 1, total: 49.0, license: null, license_pending: true },
      ],
    },
  });
}

/** The §4.1 example trimmed to exactly the properties the §4.2 XML example shows. */
export function xmlExampleTree(): NotificationTree {
  const tree = exampleTree();
  return {
    ...tree,
    data: {
      object: 'order',
      order_id: '3HE81X8T8P1B',
      total: 49.0,
      promotion: null,
      items: [{ object: 'order_item', item_id: 'photo-editor-pro', name: 'Photo Editor Pro', license: null, license_pending: true }],
    },
  };
}

/** The §4.1 example trimmed to exactly the properties the §4.3 HTML example shows. */
export function htmlExampleTree(): NotificationTree {
  const tree = exampleTree();
  return {
    ...tree,
    data: { order_id: '3HE81X8T8P1B', total: 49.0, items: [{ name: 'Photo Editor Pro', quantity: 1 }] },
  };
}
