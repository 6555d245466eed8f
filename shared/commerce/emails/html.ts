/**
 * HTML handling for customer emails: escaping interpolated text, re-sanitising license HTML to
 * the tag set of licenses.md §5.4, and turning stored HTML fragments (license codes, license
 * service instructions) into plain text for the text part. Everything here is pure and works on
 * untrusted input: merchant scripts write license bodies, customers write their own names.
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

// ---------------------------------------------------------------------------------------------
// Tokens

/**
 * One start or end tag. Attribute names may not contain `<`, so a run of `<a <a <a` fails fast
 * at the next `<` instead of rescanning the rest of the input from every `<` (4,096-character
 * license bodies are attacker-chosen).
 */
const TAG =
  /<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s+[^\s"'>/=<]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/y;
/** Comments, doctypes and processing instructions, which never display. */
const DECLARATION = /<!--[\s\S]*?(?:-->|$)|<[!?][^>]*(?:>|$)/y;
/** A character reference candidate: `&#169;`, `&#xA9;`, `&copy;`. */
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/y;

type Token =
  | { kind: 'text'; raw: string }
  | { kind: 'tag'; raw: string; name: string; closing: boolean; attributes: string }
  | { kind: 'declaration'; raw: string };

/** Splits an HTML fragment into text, tags and declarations; a `<` that starts neither is text. */
function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  let text = '';
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (lt === -1) {
      text += html.slice(at);
      break;
    }
    text += html.slice(at, lt);
    TAG.lastIndex = lt;
    const tag = TAG.exec(html);
    if (tag) {
      if (text) tokens.push({ kind: 'text', raw: text });
      text = '';
      tokens.push({
        kind: 'tag',
        raw: tag[0],
        name: (tag[2] ?? '').toLowerCase(),
        closing: tag[1] === '/',
        attributes: tag[3] ?? '',
      });
      at = TAG.lastIndex;
      continue;
    }
    DECLARATION.lastIndex = lt;
    const declaration = DECLARATION.exec(html);
    if (declaration) {
      if (text) tokens.push({ kind: 'text', raw: text });
      text = '';
      tokens.push({ kind: 'declaration', raw: declaration[0] });
      at = DECLARATION.lastIndex;
      continue;
    }
    text += '<';
    at = lt + 1;
  }
  if (text) tokens.push({ kind: 'text', raw: text });
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Character references

/**
 * Named references the sanitiser keeps and the text conversion decodes. License bodies are
 * codes and short notes; an unlisted name is shown literally (`&foo;` stays `&foo;` in both
 * parts) rather than guessed at.
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', shy: '\u00ad',
  copy: '©', reg: '®', trade: '™', deg: '°', sect: '§', para: '¶', middot: '·', bull: '•',
  hellip: '…', ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
  laquo: '«', raquo: '»', times: '×', divide: '÷', plusmn: '±', euro: '€', pound: '£',
  yen: '¥', cent: '¢', larr: '←', rarr: '→', uarr: '↑', darr: '↓', check: '✓',
};

/** A code point that may be written as a reference: no NUL, surrogates, C0/C1 controls (but tab, LF, CR) or values past Unicode. */
function isDisplayableCodePoint(cp: number): boolean {
  if (cp === 0x09 || cp === 0x0a || cp === 0x0d) return true;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return cp <= 0x10ffff;
}

/** The reference starting at `at`, as its raw text and decoded value, or null when none valid starts there. */
function referenceAt(text: string, at: number): { raw: string; value: string } | null {
  REFERENCE.lastIndex = at;
  const match = REFERENCE.exec(text);
  if (!match) return null;
  const [raw, decimal, hex, name] = match;
  if (name !== undefined) {
    const value = NAMED[name];
    return value === undefined ? null : { raw, value };
  }
  const cp = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? '', 16);
  return isDisplayableCodePoint(cp) ? { raw, value: String.fromCodePoint(cp) } : null;
}

/** Text content made safe for HTML: valid references kept as written, every other `&<>"'` escaped. */
function escapeKeepingReferences(text: string): string {
  let out = '';
  for (let at = 0; at < text.length; at++) {
    const c = text[at] ?? '';
    if (c === '&') {
      const reference = referenceAt(text, at);
      if (reference) {
        out += reference.raw;
        at += reference.raw.length - 1;
        continue;
      }
    }
    out += ESCAPES[c] ?? c;
  }
  return out;
}

/** Decodes the valid references of a text run; invalid ones stay literal, as a browser shows them after the sanitiser. */
function decodeReferences(text: string): string {
  return text.replace(/&[^&;\s]{1,40};/g, (candidate, offset: number, whole: string) => {
    return referenceAt(whole, offset)?.value ?? candidate;
  });
}

// ---------------------------------------------------------------------------------------------
// License HTML

/** Inline tags a license may carry besides `<br>` (licenses.md §5.4). */
const LICENSE_INLINE_TAGS = new Set(['b', 'strong', 'i', 'em']);

/**
 * License HTML re-sanitised for the email, whatever it holds: only `<br>`, `<b>`, `<strong>`,
 * `<i>`, `<em>` and their end tags survive, lower-cased and without attributes; every other tag,
 * comment or stray `<`/`>` is escaped so it shows as text; valid character references are kept
 * and other `&` escaped; unclosed tags are closed and stray end tags dropped, so formatting never
 * leaks into the rest of the email.
 *
 * @example sanitizeLicenseHtml('<B class="k">PE-1</B><br/><script>x()</script>')
 *   // '<b>PE-1</b><br>&lt;script&gt;x()&lt;/script&gt;'
 */
export function sanitizeLicenseHtml(html: string): string {
  let out = '';
  const open: string[] = [];
  for (const token of tokenize(html)) {
    if (token.kind === 'tag') {
      if (token.name === 'br' && !token.closing) {
        out += '<br>';
        continue;
      }
      if (LICENSE_INLINE_TAGS.has(token.name)) {
        if (!token.closing) {
          open.push(token.name);
          out += `<${token.name}>`;
        } else if (open.includes(token.name)) {
          // Close whatever was opened inside it too, keeping the output well nested.
          for (let name = open.pop(); name !== undefined; name = open.pop()) {
            out += `</${name}>`;
            if (name === token.name) break;
          }
        }
        continue;
      }
    }
    out += escapeKeepingReferences(token.raw);
  }
  for (let name = open.pop(); name !== undefined; name = open.pop()) out += `</${name}>`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Plain text

/** Tags that end a block of text; they become line breaks in the plain form. */
const BLOCK_TAGS = new Set([
  'p', 'div', 'ul', 'ol', 'table', 'tr', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr',
]);
/** Elements whose content never displays. */
const HIDDEN_ELEMENTS = new Set(['script', 'style', 'head', 'title', 'template']);
const HREF = /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;

/**
 * An HTML fragment as plain text: `<br>` becomes a line break, paragraphs and other blocks are
 * separated by blank lines, list items start with `- `, links with a web or mail address read
 * `label (address)`, `script`/`style` content and comments are dropped, other tags are removed
 * and character references decoded. Whitespace is collapsed as a browser would.
 *
 * @example htmlToText('<p>Open <b>Help &gt; Register</b>.</p><p>Code:<br>AB-1</p>')
 *   // 'Open Help > Register.\n\nCode:\nAB-1'
 */
export function htmlToText(html: string): string {
  let out = '';
  let hiddenUntil: string | null = null;
  let href: string | null = null;
  let linkStart = 0;
  for (const token of tokenize(html)) {
    if (hiddenUntil !== null) {
      if (token.kind === 'tag' && token.closing && token.name === hiddenUntil) hiddenUntil = null;
      continue;
    }
    if (token.kind === 'declaration') continue;
    if (token.kind === 'text') {
      out += decodeReferences(token.raw.replace(/[ \t\n\r\f]+/g, ' '));
      continue;
    }
    const { name, closing } = token;
    if (HIDDEN_ELEMENTS.has(name) && !closing && !/\/\s*$/.test(token.raw.slice(0, -1))) {
      hiddenUntil = name;
    } else if (name === 'br') {
      out += '\n';
    } else if (name === 'li') {
      if (!closing) out += '\n- ';
    } else if (BLOCK_TAGS.has(name)) {
      out += '\n\n';
    } else if (name === 'td' || name === 'th') {
      if (closing) out += ' ';
    } else if (name === 'a') {
      if (!closing) {
        const match = HREF.exec(token.attributes);
        const target = decodeReferences(match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
        href = /^(?:https?:\/\/|mailto:)\S+$/i.test(target) ? target : null;
        linkStart = out.length;
      } else if (href !== null) {
        const label = out.slice(linkStart).trim();
        const shown = href.replace(/^mailto:/i, '');
        if (label !== shown && label !== href) out += label ? ` (${shown})` : shown;
        href = null;
      }
    }
  }
  return tidyText(out);
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
