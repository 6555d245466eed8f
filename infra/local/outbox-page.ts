/**
 * The outbox as a mail client shows it (`GET /_local/outbox` with `Accept: text/html`): a list
 * of messages on the left (sender, subject, time, a preview of the text, recipient), the chosen
 * message rendered on the right. Plain HTML and CSS that works without JavaScript: each row links
 * to `?message=<id>`, and the message is shown in a sandboxed frame (no scripts, no forms), so an
 * email's markup can neither run nor restyle the page.
 */
import { escapeHtml } from '../../shared/core/html';
import type { OutboxEntry } from '../../shared/platform/adapters/ses-email';

/** One row of the list: a message's metadata with its preview and addresses. */
export interface OutboxPageEntry extends OutboxEntry {
  /** The start of the text body, on one line. */
  preview: string;
  html_url: string;
  text_url: string;
  eml_url: string;
}

/** Characters of the text body a row shows. */
export const PREVIEW_CHARACTERS = 140;

/** The start of a text body on one line, for the list. */
export function previewOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARACTERS ? `${line.slice(0, PREVIEW_CHARACTERS - 1)}…` : line;
}

/** `2026-11-28T04:05:06Z` as `28 Nov 2026, 04:05 UTC` (the outbox's dates are UTC). */
function shownDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${two(date.getUTCHours())}:${two(date.getUTCMinutes())} UTC`;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa;height:100vh;display:flex;flex-direction:column}
header{padding:10px 16px;background:#24292f;color:#fff;display:flex;align-items:baseline;gap:12px}
header h1{font-size:16px;margin:0}
header span{color:#c9d1d9;font-size:13px}
main{flex:1;display:flex;min-height:0}
nav{width:38%;max-width:460px;min-width:260px;overflow-y:auto;border-right:1px solid #d0d7de;background:#fff}
nav ol{list-style:none;margin:0;padding:0}
nav a{display:block;padding:10px 14px;border-bottom:1px solid #eaeef2;color:inherit;text-decoration:none}
nav a:hover{background:#f3f6f9}
nav a[aria-current]{background:#ddf4ff;border-left:3px solid #0969da;padding-left:11px}
.top{display:flex;justify-content:space-between;gap:8px}
.from{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
time{color:#57606a;font-size:12px;white-space:nowrap}
.subject{margin-top:2px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.preview{margin-top:2px;color:#57606a;font-size:13px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
section{flex:1;display:flex;flex-direction:column;min-width:0}
.head{padding:14px 18px;background:#fff;border-bottom:1px solid #d0d7de}
.head h2{font-size:18px;margin:0 0 6px}
.head dl{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0;font-size:13px}
.head dt{color:#57606a}
.head dd{margin:0}
.raw{margin-top:8px;font-size:12px}
iframe{flex:1;border:0;background:#fff;width:100%}
.empty{margin:auto;color:#57606a}
`;

/** The whole page; `selected` is the message shown on the right (the newest when absent or unknown). */
export function outboxPage(entries: readonly OutboxPageEntry[], selected?: string): string {
  const current = entries.find((entry) => entry.message_id === selected) ?? entries[0];
  const rows = entries
    .map((entry) => {
      const mark = entry === current ? ' aria-current="true"' : '';
      return (
        `<li><a href="?message=${encodeURIComponent(entry.message_id)}"${mark}>` +
        `<div class="top"><span class="from">${escapeHtml(entry.from)}</span><time datetime="${escapeHtml(entry.date)}">${escapeHtml(shownDate(entry.date))}</time></div>` +
        `<div class="subject">${escapeHtml(entry.subject)}</div>` +
        `<div class="preview">${escapeHtml(entry.preview)}</div></a></li>`
      );
    })
    .join('');
  const reading = current
    ? `<div class="head"><h2>${escapeHtml(current.subject)}</h2><dl>` +
      `<dt>From</dt><dd>${escapeHtml(current.from)}</dd><dt>To</dt><dd>${escapeHtml(current.to)}</dd>` +
      `<dt>Date</dt><dd><time datetime="${escapeHtml(current.date)}">${escapeHtml(shownDate(current.date))}</time></dd>` +
      `<dt>Kind</dt><dd>${escapeHtml(current.kind)}${current.order_id ? ` · order ${escapeHtml(current.order_id)}` : ''}</dd></dl>` +
      `<div class="raw"><a href="${escapeHtml(current.html_url)}">HTML</a> · <a href="${escapeHtml(current.text_url)}">text</a> · <a href="${escapeHtml(current.eml_url)}">raw MIME</a></div></div>` +
      `<iframe title="The message" sandbox src="${escapeHtml(current.html_url)}"></iframe>`
    : '<p class="empty">No email has been sent yet. Messages the platform sends appear here.</p>';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>Outbox (${entries.length}) · Cartwheel</title><style>${STYLE}</style></head><body>` +
    `<header><h1>Outbox</h1><span>${entries.length} message${entries.length === 1 ? '' : 's'} · local runtime, nothing is really sent</span></header>` +
    `<main><nav aria-label="Messages"><ol>${rows}</ol></nav><section aria-label="Message">${reading}</section></main></body></html>`
  );
}
