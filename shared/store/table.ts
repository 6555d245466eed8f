/**
 * The single DynamoDB table, as data. The CDK stack and the local runtime both build the
 * table from this definition, so the key schema and indexes cannot drift apart.
 *
 * Key layout (keys are built by the entity helper, shared/store/entity.ts, and the stores):
 * - `pk`/`sk`: the item's own key. Records of a mode-scoped entity are
 *   `<account>#<mode>#<collection>#<id>` / `record`, account-wide ones
 *   `<account>#<collection>#<id>` / `record`; platform-wide lookups (token hash, user id,
 *   user email) start with a kind prefix and point straight to their account. Counters,
 *   claims and due-work records have keys of their own (their stores say which).
 * - `ttl`: epoch seconds after which DynamoDB may delete the item; readers still check
 *   expiry themselves, because TTL deletion is lazy.
 *
 * The indexes, and who uses each for what, are in `indexes[].uses` below: every entity that
 * writes an index's keys or queries it declares that in its `defineEntity({ indexes })`, and
 * test/store/indexes.test.ts checks both lists agree, so this page cannot go stale.
 */

/** One global secondary index and what it serves. */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** What the index is for, in general. */
  purpose: string;
  /** Entity name → what that entity uses the index for. */
  uses: Record<string, string>;
}

export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    {
      name: 'gsi1',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      purpose:
        'Listing in creation order. pk = the collection partition (<owner>#<collection>). sk = either ' +
        '<date_created ISO>#<id> (cursor lists) or <bucket>#<sequence> (offset lists with bucket counters, store/offset-index.ts).',
      uses: {
        auth: 'tokens by date_created within <account>#<mode>#auths#<kind> (offset list by date)',
        user: 'users of an account by creation',
        'oauth app': 'OAuth apps of an account by creation',
        'oauth grant': 'OAuth grants of an account by creation (revoking a user\'s or an app\'s)',
        product: 'products by creation sequence (offset list); deleted ones under <partition>#deleted',
        promotion: 'promotions by creation sequence (offset list); deleted ones under <partition>#deleted',
        'shipping method': 'shipping methods by creation sequence (offset list)',
        'event subscription': 'event subscriptions by creation sequence (offset list)',
        'license service': 'license services by creation sequence (offset list)',
        'hosted function': 'hosted functions by creation sequence (offset list)',
        image: 'images by creation sequence (offset list); pending and deleted ones are not listed',
        app: 'apps by creation sequence (offset list)',
        'app version': 'versions of an app by number (offset list): <account>#apps#<app_id>#versions',
        'app deployment': 'deployments of an app in order (offset list): <account>#apps#<app_id>#deployments',
        customer: 'customers by date_created (cursor list)',
        cart: 'carts by date_created (cursor list)',
        order: 'orders by date_created (cursor list)',
        shipment: 'shipments by date_created (cursor list; filter order_id)',
        subscription: 'subscriptions by date_created (cursor list; filters status, customer_id, in_grace_period)',
        invoice: 'invoices by date_created (cursor list)',
        payment: 'payments by date_created (cursor list), and payments of an order (filtered)',
        refund: 'refunds by date_created (cursor list), and refunds of a customer (filtered)',
        occurrence: 'occurrences by date_created (operators, tests)',
        event: 'events by date_created (cursor list)',
        'license request': 'license requests by date_created (cursor list)',
      },
    },
    {
      name: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      purpose: 'Listing by date_modified. pk = the collection partition; sk = <date_modified ISO>#<id>.',
      uses: {
        auth: 'tokens by date_modified',
        customer: 'customers by date_modified (cursor list, date_type=date_modified)',
        cart: 'carts by date_modified',
        order: 'orders by date_modified',
        shipment: 'shipments by date_modified (cursor list, date_type=date_modified)',
        subscription: 'subscriptions by date_modified (cursor list, date_type=date_modified)',
        invoice: 'invoices by date_modified (cursor list, date_type=date_modified)',
        payment: 'payments by date_modified',
        refund: 'refunds by date_modified',
        event: 'events by date_modified (cursor list, date_type=date_modified)',
        'license request': 'license requests by date_modified (cursor list, date_type=date_modified)',
      },
    },
    {
      name: 'gsi3',
      partitionKey: 'gsi3pk',
      sortKey: 'gsi3sk',
      purpose: 'Secondary lookups and due work: sub-collections of another resource, duplicate detection, work due at a time.',
      uses: {
        order: "a customer's orders: <owner>#customer-orders#<customer_id>, sk <date_created>#<id>",
        shipment: "an order's shipments: <owner>#order-shipments#<order_id>, sk <date_created>#<id>",
        subscription: "a customer's subscriptions: <owner>#customer-subscriptions#<customer_id>, sk <date_created>#<id>",
        invoice: "a customer's invoices: <owner>#customer-invoices#<customer_id>, sk <date_created>#<id>",
        payment: 'duplicate detection: <owner>#payment-dup#<fingerprint>#<currency>#<total>, sk <date_created>#<id>',
        refund: "a payment's (and its order's) refunds: <owner>#payment-refunds#<payment_id>, sk <date_created>#<id>",
        'payment method': "a customer's saved methods: <owner>#customer-payment-methods#<customer_id>",
        'due work': 'work due at a time, across accounts: due#<kind>, sk <next attempt ISO>#<account>#<mode>#<ref> (shared/work)',
        'gateway charge': 'the built-in test gateway ledger in charge order: test-gateway#charges (listed by the local runtime only)',
      },
    },
  ],
} as const satisfies {
  partitionKey: string;
  sortKey: string;
  ttlAttribute: string;
  indexes: readonly IndexDefinition[];
};

/** The name of a global secondary index of the table. */
export type IndexName = (typeof tableDefinition.indexes)[number]['name'];

/** Attribute names of every key in the table and its indexes (all strings). */
export function keyAttributes(): string[] {
  return [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...tableDefinition.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
}
