/**
 * HTML as strings: escaping text into markup and reading markup back as plain text. Pure and
 * safe on untrusted input (customers write their own names, merchants their notifications).
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values: `<b>"Ana" & co` → `&lt;b&gt;&quot;Ana&quot; &amp; co`. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * Controls HTML reports as parse errors (C0 other than tab, LF, FF, CR; DEL and C1) and lone
 * surrogates, shown as U+FFFD: the page is for people, and these have no visible form.
 */
const notHtmlChar = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F]|\p{Surrogate}/gu;

/**
 * `escapeHtml` for a page shown to people (a notification's HTML body): characters HTML cannot
 * carry become U+FFFD first. `'a\u0001<b'` → `'a\uFFFD&lt;b'`.
 */
export function escapeHtmlText(value: string): string {
  return escapeHtml(value.replace(notHtmlChar, '\uFFFD'));
}

/**
 * A plain-text reading of an HTML document: scripts and styles dropped, one block per line,
 * table cells separated by tabs, tags removed, the five escapes of `escapeHtml` decoded.
 *
 * @example htmlToText('<h1>order:created</h1><table><tr><th>id</th><td>A&amp;B</td></tr></table>') // 'order:created\nid\tA&B'
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<\/(p|div|h\d|li|tr|table|dl|dt|dd|section)>|<br\s*\/?>/gi, '\n')
    .replace(/<\/t[dh]>/gi, '\t')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
