/**
 * Text for customer emails: license service instructions as plain text for the text part, and
 * plain text tidied for an email body (escaping is `escapeHtml` of `shared/core/html.ts`). License
 * HTML itself is sanitised by `shared/modules/licenses/sanitize.ts`. Everything here is pure and
 * works on untrusted input: merchants write instructions, customers write their own names.
 */
import { escapeHtml } from '../../../core/html';
import { licenseHtmlToText, sanitizeInstructions } from '../../../modules/licenses';

/** A link as the sanitiser writes it: `href` is its only attribute, always double-quoted. */
const LINK = /<a href="([^"]*)">([\s\S]*?)<\/a>/g;

/** A link for the plain form, still as HTML: `label (address)`, or just one when they read the same. */
function linkText(_match: string, hrefHtml: string, labelHtml: string): string {
  const href = licenseHtmlToText(hrefHtml);
  const shown = href.replace(/^mailto:/i, '');
  const label = licenseHtmlToText(labelHtml).trim();
  if (label === shown || label === href) return labelHtml;
  return label ? `${labelHtml} (${escapeHtml(shown)})` : escapeHtml(shown);
}

/**
 * Instructions HTML as plain text: sanitised to the tag set of licenses.md §2.1 first (what
 * saving a service does anyway), then source whitespace collapsed as a browser would,
 * paragraphs and lists separated by blank lines, list items started with `- `, links written
 * `label (address)`, and the rest read like license HTML (`licenseHtmlToText`: `<br>` to a line
 * break, tags removed, references decoded).
 *
 * @example instructionsToText('<p>Open <b>Help &gt; Register</b>.</p><p>Code:<br>AB-1</p>')
 *   // 'Open Help > Register.\n\nCode:\nAB-1'
 */
export function instructionsToText(html: string): string {
  const layout = sanitizeInstructions(html)
    .replace(/[ \t\n\r\f]+/g, ' ')
    .replace(/<\/?(?:p|ul|ol)>/g, '<br><br>')
    .replace(/<li>/g, '<br>- ')
    .replace(LINK, linkText);
  return tidyText(licenseHtmlToText(layout));
}

/** Plain text cleaned for an email body: CRLF to LF, control characters and no-break spaces dropped or made spaces, lines trimmed, at most one blank line in a row. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u2007\u202f\t]/g, ' ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad]/g, '')
    .split('\n')
    .map((line) => line.replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
