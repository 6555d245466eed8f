/**
 * Notification bodies and delivery signatures (events.md §4, §5): what the delivery side
 * imports. Render once when the event is created; sign at every attempt.
 */
export { contentTypes, htmlBody, isXmlElementName, jsonBody, notificationTree, renderBody, xmlBody, type NotificationTreeInput } from './body';
export {
  WEBHOOK_TOLERANCE_SECONDS,
  serviceSignature,
  signatureHeaders,
  signingKey,
  standardWebhooksSecret,
  unixSeconds,
  verifyDelivery,
  webhookSignature,
  type ReceivedHeaders,
  type SignatureHeaders,
  type SignedBody,
} from '../../../outbound/signature';
// The door's escapeHtml has always been the one the HTML body uses (controls shown as U+FFFD).
export { escapeHtmlText as escapeHtml } from '../../../core/html';
export type { BodyTree, JsonObject, JsonValue, NotificationFormat, NotificationTree, RenderedBody } from './types';
