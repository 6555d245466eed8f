/**
 * PLACEHOLDER, replaced by the sanitiser branch: minimal versions of the license sanitisers
 * (licenses.md §2.1 instructions, §5.4 license replies) on `sanitize-html`, so that license
 * services compile and run until the real module lands. The other branch's file wins on merge.
 */
import sanitizeHtml from 'sanitize-html';

const REPLY_TAGS = ['br', 'b', 'strong', 'i', 'em'];
const INSTRUCTION_TAGS = ['p', 'br', 'b', 'strong', 'i', 'em', 'ul', 'ol', 'li', 'a'];

/** `<br />` as sanitize-html writes it, in the contract's form `<br>`. */
const plainBr = (html: string) => html.replace(/<br \/>/g, '<br>');

/** Service instructions (licenses.md §2.1): the limited HTML kept, anything else stripped. */
export function sanitizeInstructions(html: string): string {
  return plainBr(
    sanitizeHtml(html, {
      allowedTags: INSTRUCTION_TAGS,
      allowedAttributes: { a: ['href'] },
      allowedSchemes: ['http', 'https', 'mailto'],
      allowedSchemesAppliedToAttributes: ['href'],
    }),
  );
}

/** A license reply or list code (licenses.md §5.4): `br`, `b`, `strong`, `i`, `em` kept without attributes. */
export function sanitizeLicenseReply(html: string): string {
  return plainBr(sanitizeHtml(html, { allowedTags: REPLY_TAGS, allowedAttributes: {} }));
}

/** Whether sanitised HTML shows any text (tags removed, character references decoded). */
export function hasVisibleText(html: string): boolean {
  const text = sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} })
    .replace(/&nbsp;/g, ' ')
    .replace(/&(?:#\d+|#x[0-9a-f]+|[a-z]+);/gi, 'x');
  return /\S/.test(text);
}
