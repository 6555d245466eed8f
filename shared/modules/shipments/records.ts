/** The stored shipment (commerce.md §8): what was sent of an order, in which quantities, and how it is tracked. */
import type { Dated } from '../../store/keys';

/** One line of a shipment: an order item and how many of its units the shipment carries. */
export interface ShipmentLine {
  item_id: string;
  product_id: string;
  name: string;
  quantity: number;
}

/** A stored shipment. */
export interface ShipmentRecord extends Dated {
  shipment_id: string;
  account_id: string;
  mode: 'live' | 'test';
  order_id: string;
  /** The order's customer, copied at creation: customer scope reads the shipments of its own orders. */
  customer_id: string;
  courier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  date_shipped_ms: number;
  items: ShipmentLine[];
  meta: unknown;
}
