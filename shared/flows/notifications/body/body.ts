/**
 * Notification bodies (events.md §4): one tree, rendered as compact JSON (§4.1), XML (§4.2) or
 * HTML (§4.3). Pure functions; the delivery side renders once when the event is created and
 * sends the same bytes on every attempt (§5).
 *
 * `data` must arrive finished: expanded, trimmed by `show`/`hide` and with its dates in the
 * subscription's zone (conventions.md §10, §11, §13). Nothing here changes values.
 */
import { XMLBuilder } from 'fast-xml-parser';
import { escapeHtmlText } from '../../../core/html';
import type { BodyTree, JsonObject, JsonValue, NotificationFormat, NotificationTree, RenderedBody } from './types';

/** The `Content-Type` of each body format (events.md §4.1, §4.2, §4.3). */
export const contentTypes: Readonly<Record<NotificationFormat, string>> = {
  json: 'application/json',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** What `notificationTree` is built from; names are the camelCase of the body's properties. */
export interface NotificationTreeInput {
  eventId: string;
  fingerprint: string;
  type: string;
  /** ISO 8601, already in the subscription's zone (conventions.md §13). */
  dateCreated: string;
  test: boolean;
  accountId: string;
  environmentVariables: Record<string, string>;
  data: JsonObject;
}

/** The §4.1 body object, its properties in the contract's order (which is the order every format writes). */
export function notificationTree(input: NotificationTreeInput): NotificationTree {
  return {
    object: 'event',
    event_id: input.eventId,
    fingerprint: input.fingerprint,
    type: input.type,
    date_created: input.dateCreated,
    test: input.test,
    account_id: input.accountId,
    environment_variables: input.environmentVariables,
    data: input.data,
  };
}

/** The JSON body: compact, no added whitespace (§4.1). */
export function jsonBody(tree: BodyTree): string {
  return JSON.stringify(tree);
}

/**
 * The tree exactly as the JSON body carries it. XML and HTML render this, so all three formats
 * say the same thing: `undefined` properties are gone, non-finite numbers are null, `toJSON`
 * has run, and a number's text is its JSON text.
 */
function asSent<T extends BodyTree>(tree: T): T {
  return JSON.parse(jsonBody(tree)) as T;
}

/** A scalar's text in XML and HTML: numbers as their JSON text, booleans `true`/`false`. */
function scalarText(value: string | number | boolean): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// XML (§4.2)

/**
 * Characters XML 1.0 cannot carry at all, not even as references (C0 controls other than tab,
 * LF and CR, lone surrogates, U+FFFE/U+FFFF). They become U+FFFD so the document stays
 * well-formed; escaping of `<>&"'` is left to the builder.
 */
const notXmlChar = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** NameStartChar and NameChar of XML 1.0 (5th ed.) without the colon, i.e. an NCName: no namespaces. */
const nameStart = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const xmlName = new RegExp(`^[${nameStart}][${nameStart}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`, 'u');

/** Whether a key can be an element name as it is (§4.2 rule 5: otherwise it is written as `<entry key="...">`). */
export function isXmlElementName(key: string): boolean {
  return xmlName.test(key);
}

/** A node in fast-xml-parser's ordered form: `{ tag: children, ':@': attributes }`. */
type OrderedNode = Record<string, unknown>;

const xmlBuilder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  processEntities: true,
});

function xmlText(value: string): string {
  return value.replace(notXmlChar, '\uFFFD');
}

/** One element for `key` holding `value` (§4.2 rules 2–5). */
function xmlElement(key: string, value: JsonValue): OrderedNode {
  const attributes: Record<string, string> = {};
  let tag = key;
  if (!isXmlElementName(key)) {
    tag = 'entry';
    attributes['@_key'] = xmlText(key);
  }
  let children: OrderedNode[];
  if (value === null) {
    attributes['@_nil'] = 'true';
    children = [];
  } else if (Array.isArray(value)) {
    children = value.map((entry) => xmlElement('item', entry));
  } else if (typeof value === 'object') {
    children = Object.entries(value).map(([childKey, child]) => xmlElement(childKey, child));
  } else {
    const text = xmlText(scalarText(value));
    children = text === '' ? [] : [{ '#text': text }];
  }
  const node: OrderedNode = { [tag]: children };
  if (Object.keys(attributes).length > 0) node[':@'] = attributes;
  return node;
}

/**
 * The XML body (§4.2): declaration, a root element named after `object`, one element per line
 * with two-space indentation, null as `nil="true"`, arrays as `<item>`s, awkward keys as
 * `<entry key="...">`. The same function renders license requests (`<license_request>`).
 */
export function xmlBody(tree: BodyTree): string {
  const sent = asSent(tree);
  if (!isXmlElementName(sent.object)) throw new Error(`Body object ${JSON.stringify(sent.object)} is not an XML element name`);
  const root = Object.entries(sent).map(([key, value]) => xmlElement(key, value));
  const document: OrderedNode[] = [
    { '?xml': [], ':@': { '@_version': '1.0', '@_encoding': 'UTF-8' } },
    { [sent.object]: root },
  ];
  return (xmlBuilder.build(document) as string).trimEnd();
}

// ---------------------------------------------------------------------------------------------
// HTML (§4.3)

function htmlCell(value: string | number | boolean | null): string {
  return value === null ? 'null' : escapeHtmlText(scalarText(value));
}

/** The rows of a two-column table for an object (by property) or an array (by position), nested tables inline. */
function htmlRows(value: JsonObject | JsonValue[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  const entries: Array<[string, JsonValue]> = Array.isArray(value) ? value.map((entry, index) => [String(index), entry]) : Object.entries(value);
  const lines: string[] = [];
  for (const [label, entry] of entries) {
    const head = `${pad}<tr><th>${escapeHtmlText(label)}</th><td>`;
    if (entry !== null && typeof entry === 'object') {
      const inner = htmlRows(entry, indent + 2);
      if (inner.length === 0) lines.push(`${head}<table></table></td></tr>`);
      else lines.push(`${head}<table>`, ...inner, `${pad}</table></td></tr>`);
    } else {
      lines.push(`${head}${htmlCell(entry)}</td></tr>`);
    }
  }
  return lines;
}

function htmlTable(value: JsonObject): string[] {
  const rows = htmlRows(value, 2);
  return rows.length === 0 ? ['<table></table>'] : ['<table>', ...rows, '</table>'];
}

/**
 * The HTML body (§4.3): a script-free page titled `<type> <event_id>`, the type as heading, then
 * tables for the envelope (every top-level property but the two below, in body order),
 * `environment_variables` and `data`.
 */
export function htmlBody(tree: NotificationTree): string {
  const sent = asSent(tree);
  const { environment_variables: environmentVariables, data, ...envelope } = sent;
  return [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtmlText(`${sent.type} ${sent.event_id}`)}</title></head>`,
    '<body>',
    `<h1>${escapeHtmlText(sent.type)}</h1>`,
    ...htmlTable(envelope),
    '<h2>environment_variables</h2>',
    ...htmlTable(environmentVariables ?? {}),
    '<h2>data</h2>',
    ...htmlTable(data ?? {}),
    '</body></html>',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** The body of a subscription's format and its `Content-Type`: `renderBody('xml', tree)`. */
export function renderBody(format: NotificationFormat, tree: NotificationTree): RenderedBody {
  switch (format) {
    case 'json':
      return { contentType: contentTypes.json, body: jsonBody(tree) };
    case 'xml':
      return { contentType: contentTypes.xml, body: xmlBody(tree) };
    case 'html':
      return { contentType: contentTypes.html, body: htmlBody(tree) };
  }
}
