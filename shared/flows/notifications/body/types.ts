/** Shared shapes of notification bodies (events.md §4). */

/** Any value a JSON body can hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object; property order is the order of the body. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A body the XML renderer accepts: any JSON object naming its root element in `object` (`event`, `license_request`). */
export type BodyTree = JsonObject & { object: string };

/** The notification body of events.md §4.1, properties in the contract's order. */
export interface NotificationTree extends BodyTree {
  object: 'event';
  event_id: string;
  fingerprint: string;
  type: string;
  date_created: string;
  test: boolean;
  account_id: string;
  environment_variables: Record<string, string>;
  data: JsonObject;
}

/** The three body formats of a subscription (events.md §2.1 `format`). */
export type { NotificationFormat } from '../../../modules/events';

/** A rendered body and the `Content-Type` it is sent with. */
export interface RenderedBody {
  contentType: string;
  body: string;
}
