/**
 * Sanitising of license texts on the maintained `sanitize-html` parser: remote replies and stored
 * codes (licenses.md §5.4), their plain form (§7 `text`) and service instructions (§2.1).
 *
 * Character references are kept as written, so `sanitize-html` runs with `decodeEntities: false`.
 * It then escapes every `&` that is not followed by `[A-Za-z0-9#]{1,20};`, but lets through
 * reference-like runs that are not references (`&foo;`, `&#0;`). `escapeInvalidAmpersands`
 * finishes the job: a reference is valid when the HTML standard decodes it without a parse error
 * and it ends with `;`. References whose body is longer than 20 characters (a handful of
 * math-symbol names such as `&ClockwiseContourIntegral;`) are escaped by `sanitize-html` first
 * and so shown literally; that errs on the safe side.
 */
import sanitizeHtml from 'sanitize-html';

// ---------------------------------------------------------------------------------------------
// Character references

/**
 * Named references known to be valid. It only ever holds names from the HTML standard's table
 * (about 2,200), so it needs no pruning however many distinct names inputs bring.
 */
const VALID_NAMES = new Set(['amp', 'lt', 'gt', 'quot', 'apos', 'nbsp']);

/** Candidate named references in raw input: the names `escapeInvalidAmpersands` will ask about. */
const NAMED_CANDIDATE = /&([A-Za-z][A-Za-z0-9]{0,19});/g;

/**
 * Learns which named references in `html` are valid, by letting `sanitize-html`'s own parser
 * decode them as attribute values: in attributes a legacy name without `;` followed by a letter
 * or digit is left alone (`&copyx;` stays, where text would give `©x;`), so a candidate comes
 * back changed exactly when the whole of `&name;` is a reference.
 */
function learnNames(html: string): void {
  const unknown = new Set<string>();
  for (const match of html.matchAll(NAMED_CANDIDATE)) {
    const name = match[1] ?? '';
    if (!VALID_NAMES.has(name)) unknown.add(name);
  }
  if (unknown.size === 0) return;
  const names = [...unknown];
  const probe = `<a ${names.map((name, i) => `r${i}="&${name};"`).join(' ')}>`;
  sanitizeHtml(probe, {
    allowedTags: [],
    allowedAttributes: {},
    onOpenTag: (_tag, attribs) => {
      names.forEach((name, i) => {
        if (attribs[`r${i}`] !== `&${name};`) VALID_NAMES.add(name);
      });
    },
  });
}

/**
 * Whether a numeric reference decodes without a parse error (HTML standard, "numeric character
 * reference end state"): not NUL, a surrogate, a noncharacter, beyond U+10FFFF, CR, or a
 * control other than tab, line feed and form feed.
 */
function isValidCodePoint(cp: number): boolean {
  if (cp === 0 || cp > 0x10ffff) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe) return false;
  if (cp === 0x09 || cp === 0x0a || cp === 0x0c) return true;
  return !(cp < 0x20 || (cp >= 0x7f && cp <= 0x9f));
}

const NUMERIC_BODY = /^#(?:([0-9]+)|[xX]([0-9A-Fa-f]+))$/;
const NAMED_BODY = /^[A-Za-z][A-Za-z0-9]*$/;

/** The code point of a numeric reference body (`#8238`, `#x202E`), or undefined for a named one. */
function numericCodePoint(body: string): number | undefined {
  const numeric = NUMERIC_BODY.exec(body);
  if (!numeric) return undefined;
  return numeric[1] !== undefined ? Number(numeric[1]) : Number.parseInt(numeric[2] ?? '', 16);
}

/** Whether `&body;` is a valid reference; named ones must have gone through `learnNames`. */
function isValidReference(body: string): boolean {
  const cp = numericCodePoint(body);
  if (cp !== undefined) return isValidCodePoint(cp);
  return NAMED_BODY.test(body) && VALID_NAMES.has(body);
}

/**
 * Characters a license text never keeps (§5.4): controls other than tab, line feed and carriage
 * return (U+0000–U+001F, U+007F–U+009F), and the bidirectional embedding, override and isolate
 * characters (U+202A–U+202E, U+2066–U+2069), which could make a code read otherwise than stored.
 */
const REMOVED_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** Whether a code point is one of `REMOVED_CHARACTERS` (for references to them). */
function isRemovedCodePoint(cp: number): boolean {
  return (cp <= 0x1f && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/**
 * Escapes every `&` that does not start a valid reference; valid ones stay as written, and
 * references to removed characters (`&#x202E;`, `&#7;`) go, as the raw characters do.
 */
function escapeInvalidAmpersands(text: string): string {
  return text.replace(/&(?:([A-Za-z0-9#]{0,20});)?/g, (match, body: string | undefined) => {
    if (body === undefined) return `&amp;${match.slice(1)}`;
    const cp = numericCodePoint(body);
    if (cp !== undefined && isRemovedCodePoint(cp)) return '';
    return isValidReference(body) ? match : `&amp;${match.slice(1)}`;
  });
}

/** Undoes the three escapes `sanitize-html` writes into text when it decodes references itself. */
function unescapeText(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_match, name: string) => (name === 'amp' ? '&' : name === 'lt' ? '<' : '>'));
}

// ---------------------------------------------------------------------------------------------
// Shared options

/** Options common to both sanitisers: only `script` and `style` lose their content (§5.4). */
const COMMON: sanitizeHtml.IOptions = {
  allowedAttributes: {},
  nonTextTags: ['script', 'style'],
  disallowedTagsMode: 'discard',
  parser: { decodeEntities: false, lowerCaseTags: true },
  textFilter: escapeInvalidAmpersands,
};

/** Runs `sanitize-html` and writes its `<br />` as `<br>`: text never holds a raw `<`, so the replace only meets tags. */
function run(html: string, options: sanitizeHtml.IOptions): string {
  const cleaned = html.replace(REMOVED_CHARACTERS, '');
  learnNames(cleaned);
  return sanitizeHtml(cleaned, options).replace(/<br \/>/g, '<br>');
}

// ---------------------------------------------------------------------------------------------
// License replies (§5.4)

/**
 * Tags are removed (text kept) through `exclusiveFilter`'s `excludeTag`, never by renaming them
 * in `transformTags`: `sanitize-html` 2.17 leaves a renamed tag's entry behind when the renamed
 * tag is discarded, and the next kept tag at that depth is then closed under the wrong name
 * (`<b class=k>a</b><b>c</b>` gave `a<b>c</dropped>`).
 */
const REPLY_OPTIONS: sanitizeHtml.IOptions = {
  ...COMMON,
  allowedTags: ['br', 'b', 'strong', 'i', 'em'],
  // No attribute is allowed, so `sanitize-html` leaves `frame.attribs` as parsed.
  exclusiveFilter: (frame) => (Object.keys(frame.attribs).length > 0 ? 'excludeTag' : false),
};

/**
 * A license reply or stored code sanitised by licenses.md §5.4, trimmed: only bare `<br>`, `<b>`,
 * `<strong>`, `<i>`, `<em>` kept (lower case, `<br/>` → `<br>`); other tags and kept tags with
 * attributes removed with their text kept; comments, `script` and `style` removed whole;
 * unclosed tags closed and stray end tags dropped; controls (but tab, line feed, carriage
 * return) and bidirectional overrides removed, raw or as references; a `<` starting no tag and `>` become `&lt;`
 * and `&gt;`; an `&` starting no valid reference becomes `&amp;`. Idempotent. Parsing follows
 * the HTML standard, so `</br>` is a `<br>` and a tag cut off by the end of input is dropped.
 *
 * @example sanitizeLicenseReply("  <p class='k'>Serial: <b>PE-4471-AZQ</b><br/>Valid for 2 PCs</p><script>x()</script> ")
 *   // 'Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs'
 */
export function sanitizeLicenseReply(html: string): string {
  return run(html, REPLY_OPTIONS).trim();
}

/** Characters that show nothing: whitespace (no-break space included), controls and default-ignorables such as U+200B. */
const INVISIBLE = /^[\p{White_Space}\p{Cc}\p{Default_Ignorable_Code_Point}]*$/u;

/**
 * Whether license HTML shows any text (§5.3 rule 3): false when only tags, whitespace, `&nbsp;`,
 * controls or zero-width characters remain. U+FFFD counts as visible, as it displays.
 *
 * @example hasVisibleText('<b>&nbsp;</b><br>') // false
 */
export function hasVisibleText(html: string): boolean {
  return !INVISIBLE.test(licenseHtmlToText(html));
}

const DECODE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['br'],
  allowedAttributes: {},
  nonTextTags: ['script', 'style'],
};

/**
 * The plain form of license HTML (§7 `text`) after sanitising it as in §5.4: `<br>` becomes a
 * line feed, tags are removed and character references decoded; other whitespace is kept as is.
 *
 * @example licenseHtmlToText('Serial: <b>PE-4471-AZQ</b><br>Valid &amp; paid') // 'Serial: PE-4471-AZQ\nValid & paid'
 */
export function licenseHtmlToText(html: string): string {
  // Sanitised HTML holds only valid references, which `sanitize-html`'s own decoding reads
  // exactly as the standard does; it re-escapes just `&`, `<` and `>` in text.
  const decoded = sanitizeHtml(sanitizeLicenseReply(html), DECODE_OPTIONS);
  return unescapeText(decoded.replace(/<br \/>/g, '\n'));
}

// ---------------------------------------------------------------------------------------------
// Service instructions (§2.1)

/** A link target kept in instructions: absolute `http`, `https` or `mailto`, matched on the raw value so no reference can hide another scheme. */
const LINK_TARGET = /^(?:https?:|mailto:)/i;

/** Keeps only an allowed `href` on `a`; an `a` left without one is removed by `exclusiveFilter`, its text kept. */
function linkOnly(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const href = (attribs.href ?? '').trim();
  return { tagName, attribs: LINK_TARGET.test(href) ? { href: escapeInvalidAmpersands(href) } : {} };
}

const INSTRUCTIONS_OPTIONS: sanitizeHtml.IOptions = {
  ...COMMON,
  allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'ul', 'ol', 'li', 'a'],
  allowedAttributes: { a: ['href'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  transformTags: { a: linkOnly },
  exclusiveFilter: (frame) => (frame.tag === 'a' && !frame.attribs.href ? 'excludeTag' : false),
};

/**
 * Service instructions limited to the HTML of licenses.md §2.1, for storing: `p`, `br`, `b`,
 * `strong`, `i`, `em`, `ul`, `ol`, `li` without attributes, and `a` with only an `http`, `https`
 * or `mailto` `href` (an `a` without one is removed, its text kept). Other tags are removed with
 * their text kept, comments, `script` and `style` removed whole; text escaping as in
 * `sanitizeLicenseReply`. Not trimmed.
 *
 * @example sanitizeInstructions('<p style="x">See <a href="https://ex.test" target="_blank">help</a></p>')
 *   // '<p>See <a href="https://ex.test">help</a></p>'
 */
export function sanitizeInstructions(html: string): string {
  return run(html, INSTRUCTIONS_OPTIONS);
}
