/**
 * Customer emails of the commerce domain. Renderers are pure: they turn records into subject,
 * HTML and text, and the capability that owns the moment of sending calls `sendEmail`.
 */
export {
  addressLines,
  confirmationReady,
  renderOrderConfirmation,
  type ConfirmationAddress,
  type ConfirmationContext,
  type ConfirmationItem,
  type ConfirmationLicense,
  type ConfirmationOrder,
  type RenderedEmail,
} from './order-confirmation';
export { instructionsToText, tidyText } from './html';
