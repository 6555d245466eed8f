/** The XML body follows every rule of events.md §4.2 and parses back to the same values. */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { isXmlElementName, jsonBody, xmlBody } from '../../../../shared/flows/notifications/body/body';
import type { BodyTree, JsonValue, NotificationTree } from '../../../../shared/flows/notifications/body/types';
import { exampleTree, xmlExampleTree } from './example';

/**
 * The §4.2 example, verbatim. The contract writes the amount `49.0`; a JSON number has no
 * trailing zero once serialised (the JSON body says `"total":49`), and rule 3 writes numbers as
 * their JSON text, so the rendered line is `<total>49</total>`. That is the only difference.
 */
const contractXml = `<?xml version="1.0" encoding="UTF-8"?>
<event>
  <object>event</object>
  <event_id>170BDJ1VSRM9</event_id>
  <fingerprint>J8PNA5RNMKGE</fingerprint>
  <type>order:created</type>
  <date_created>2026-11-21T11:15:02+01:00</date_created>
  <test>false</test>
  <account_id>XG5908XMX3MH</account_id>
  <environment_variables>
    <ERP_CHANNEL>web</ERP_CHANNEL>
  </environment_variables>
  <data>
    <object>order</object>
    <order_id>3HE81X8T8P1B</order_id>
    <total>49.0</total>
    <promotion nil="true"/>
    <items>
      <item>
        <object>order_item</object>
        <item_id>photo-editor-pro</item_id>
        <name>Photo Editor Pro</name>
        <license nil="true"/>
        <license_pending>true</license_pending>
      </item>
    </items>
  </data>
</event>`;
const expectedXml = contractXml.replace('<total>49.0</total>', '<total>49</total>');

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, parseAttributeValue: false, trimValues: false });

/** What an element says once parsed: null (nil), text, or its child elements as [name, value] pairs. */
type Decoded = null | string | Array<[string, Decoded]>;

type ParsedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function decodeChildren(children: ParsedNode[]): Array<[string, Decoded]> {
  return children.filter((node) => !('#text' in node)).map((node) => {
    const name = Object.keys(node).find((key) => key !== ':@')!;
    const attributes = node[':@'] ?? {};
    const label = name === 'entry' && '@_key' in attributes ? `entry:${attributes['@_key']}` : name;
    return [label, decodeElement(node[name] as ParsedNode[], attributes)];
  });
}

function decodeElement(children: ParsedNode[], attributes: Record<string, string>): Decoded {
  if (attributes['@_nil'] === 'true') return null;
  const elements = children.filter((node) => !('#text' in node));
  if (elements.length > 0) return decodeChildren(children);
  return children.map((node) => String(node['#text'])).join('');
}

/** Parses an XML body with fast-xml-parser: the root's name and its decoded content. */
function parseXml(xml: string): { root: string; content: Decoded; attributes: Record<string, string> } {
  const nodes = parser.parse(xml) as ParsedNode[];
  const rootNode = nodes.find((node) => !('?xml' in node) && !('#text' in node))!;
  const root = Object.keys(rootNode).find((key) => key !== ':@')!;
  return { root, content: decodeElement(rootNode[root] as ParsedNode[], rootNode[':@'] ?? {}), attributes: rootNode[':@'] ?? {} };
}

/** What the XML should carry for a JSON value, in the decoded form (an empty container is an empty element). */
function xmlView(value: JsonValue): Decoded {
  if (value === null) return null;
  if (Array.isArray(value)) return value.length === 0 ? '' : value.map((entry) => ['item', xmlView(entry)]);
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? '' : entries.map(([key, entry]) => [isXmlElementName(key) ? key : `entry:${key}`, xmlView(entry)]);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function tree(data: NotificationTree['data']): NotificationTree {
  return { ...exampleTree(), data };
}

/** The `<data>` element's lines of a rendered body. */
function dataLines(xml: string): string[] {
  const lines = xml.split('\n');
  return lines.slice(lines.indexOf('  <data>'), lines.lastIndexOf('  </data>') + 1);
}

describe('the §4.2 example', () => {
  it('renders byte for byte as the contract shows it', () => {
    expect(xmlBody(xmlExampleTree())).toBe(expectedXml);
  });

  it('the full §4.1 example shows every contract line, in order', () => {
    const lines = xmlBody(exampleTree()).split('\n');
    let at = 0;
    for (const line of expectedXml.split('\n')) {
      const found = lines.indexOf(line, at);
      expect(found, line).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
  });

  it('parses back with XMLParser to the same values', () => {
    const body = exampleTree();
    const parsed = parseXml(xmlBody(body));
    expect(parsed.root).toBe('event');
    expect(parsed.attributes).toEqual({});
    expect(parsed.content).toEqual(xmlView(body));
  });

  it('with default XMLParser options gives the scalars back as values', () => {
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xmlBody(exampleTree())) as { event: Record<string, any> };
    expect(parsed.event.event_id).toBe('170BDJ1VSRM9');
    expect(parsed.event.test).toBe(false);
    expect(parsed.event.data.total).toBe(49);
    expect(parsed.event.data.customer.email).toBe('ana@example.org');
    expect(parsed.event.data.items.item.license_pending).toBe(true);
    expect(parsed.event.data.items.item.license['@_nil']).toBe('true');
  });
});

describe('rule 1: declaration and root', () => {
  it('starts with the declaration and names the root after object', () => {
    const body: BodyTree = { object: 'license_request', license_request_id: 'LR1', quantity: 2 };
    expect(xmlBody(body)).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<license_request>
  <object>license_request</object>
  <license_request_id>LR1</license_request_id>
  <quantity>2</quantity>
</license_request>`);
  });

  it('refuses an object that cannot name an element', () => {
    expect(() => xmlBody({ object: 'not a name' })).toThrow(/not an XML element name/);
  });
});

describe('rules 2 and 3: elements in JSON order, scalar text', () => {
  it('keeps the JSON order of properties', () => {
    const body = tree({ zeta: 1, alpha: 2, mid: 3 });
    expect(dataLines(xmlBody(body))).toEqual(['  <data>', '    <zeta>1</zeta>', '    <alpha>2</alpha>', '    <mid>3</mid>', '  </data>']);
    // The same order as the JSON body, integer-like keys included.
    const ordered = tree({ b: 1, '10': 2, a: 3, '2': 4 });
    const jsonKeys = Object.keys((JSON.parse(jsonBody(ordered)) as NotificationTree).data);
    const xmlKeys = (parseXml(xmlBody(ordered)).content as Array<[string, Decoded]>).find(([name]) => name === 'data')![1] as Array<[string, Decoded]>;
    expect(xmlKeys.map(([name]) => name)).toEqual(jsonKeys.map((key) => (isXmlElementName(key) ? key : `entry:${key}`)));
  });

  it('writes numbers as their JSON text and booleans as true/false', () => {
    const body = tree({ int: 3, neg: -2.5, small: 0.1, tiny: 1e-7, big: 1e21, zero: -0, yes: true, no: false });
    expect(dataLines(xmlBody(body))).toEqual([
      '  <data>',
      '    <int>3</int>',
      '    <neg>-2.5</neg>',
      '    <small>0.1</small>',
      '    <tiny>1e-7</tiny>',
      '    <big>1e+21</big>',
      '    <zero>0</zero>',
      '    <yes>true</yes>',
      '    <no>false</no>',
      '  </data>',
    ]);
  });

  it('writes null as an empty element with nil="true", and never a nil on anything else', () => {
    const body = tree({ a: null, b: '', c: 'null' });
    expect(dataLines(xmlBody(body))).toEqual(['  <data>', '    <a nil="true"/>', '    <b/>', '    <c>null</c>', '  </data>']);
  });

  it('says the same as the JSON body for values JSON itself rewrites (NaN, undefined)', () => {
    const body = tree({ nan: Number.NaN, gone: undefined as unknown as null, list: [undefined as unknown as null] });
    expect(dataLines(xmlBody(body))).toEqual(['  <data>', '    <nan nil="true"/>', '    <list>', '      <item nil="true"/>', '    </list>', '  </data>']);
  });

  it('escapes <>&"\' in text and the result parses back to the string', () => {
    const nasty = `<script>alert("x")</script> & 'quotes' ]]> <!-- c --> <![CDATA[x]]>`;
    const xml = xmlBody(tree({ s: nasty }));
    expect(xml).not.toContain('<script');
    expect(xml).not.toContain('<!--');
    expect(xml).not.toContain('<![CDATA[');
    expect(parseXml(xml).content).toEqual(xmlView(tree({ s: nasty })));
  });

  it('keeps unicode as it is', () => {
    const text = 'Ünïcødé – 日本語 – emoji 🎉 – RTL עברית';
    const xml = xmlBody(tree({ s: text, 'größe': 'L', 名前: 'x' }));
    expect(xml).toContain(`<s>${text}</s>`);
    expect(xml).toContain('<größe>L</größe>');
    expect(xml).toContain('<名前>x</名前>');
    expect(parseXml(xml).content).toEqual(xmlView(tree({ s: text, 'größe': 'L', 名前: 'x' })));
  });

  it('replaces characters XML 1.0 cannot carry with U+FFFD and keeps tab, newline and CR', () => {
    const xml = xmlBody(tree({ s: 'a\u0000b\u0001c\u001Fd\tE\nF\uFFFEg\uD800h', k: '\u0007' }));
    expect(xml).toContain('<s>a\uFFFDb\uFFFDc\uFFFDd\tE\nF\uFFFDg\uFFFDh</s>');
    expect(xml).toContain('<k>\uFFFD</k>');
    // Nothing in the document is outside XML 1.0's Char production.
    expect(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(xml)).toBe(false);
    expect(Buffer.from(xml, 'utf8').toString('utf8')).toBe(xml);
  });
});

describe('rule 4: objects and arrays', () => {
  it('nests objects and writes one <item> per array entry, nested arrays included', () => {
    const body = tree({ obj: { a: { b: 1 } }, list: [1, 'two', null, [3, [4]], { c: true }] });
    expect(dataLines(xmlBody(body))).toEqual([
      '  <data>',
      '    <obj>',
      '      <a>',
      '        <b>1</b>',
      '      </a>',
      '    </obj>',
      '    <list>',
      '      <item>1</item>',
      '      <item>two</item>',
      '      <item nil="true"/>',
      '      <item>',
      '        <item>3</item>',
      '        <item>',
      '          <item>4</item>',
      '        </item>',
      '      </item>',
      '      <item>',
      '        <c>true</c>',
      '      </item>',
      '    </list>',
      '  </data>',
    ]);
    expect(parseXml(xmlBody(body)).content).toEqual(xmlView(body));
  });

  it('writes an empty array and an empty object as an empty element', () => {
    const body = tree({ list: [], obj: {}, nested: [[], {}] });
    expect(dataLines(xmlBody(body))).toEqual(['  <data>', '    <list/>', '    <obj/>', '    <nested>', '      <item/>', '      <item/>', '    </nested>', '  </data>']);
  });
});

describe('rule 5: keys that are not XML names', () => {
  it('tells names from non-names', () => {
    // XML 1.0 (fifth edition) names: most of Unicode may start a name, including astral symbols.
    for (const name of ['a', '_a', 'a1', 'a-b', 'a.b', 'ERP_CHANNEL', 'größe', '名前', 'item', 'entry', '🎉']) expect(isXmlElementName(name), name).toBe(true);
    for (const key of ['', '2nd', 'a b', 'x:y', ':a', '-a', '.a', '#text', '@_key', '?xml', 'a<b', 'a&b', 'a"b', 'tab\tkey', '×', '$a']) expect(isXmlElementName(key), key).toBe(false);
  });

  it('writes such keys as <entry key="original key">, attribute escaped, in place', () => {
    const body = tree({ first: 1, '2nd': 2, 'a b': { 'x:y': 'z' }, 'q"<&>\'': [null], '': 'empty', last: 3 });
    expect(dataLines(xmlBody(body))).toEqual([
      '  <data>',
      '    <first>1</first>',
      '    <entry key="2nd">2</entry>',
      '    <entry key="a b">',
      '      <entry key="x:y">z</entry>',
      '    </entry>',
      '    <entry key="q&quot;&lt;&amp;&gt;&apos;">',
      '      <item nil="true"/>',
      '    </entry>',
      '    <entry key="">empty</entry>',
      '    <last>3</last>',
      '  </data>',
    ]);
    expect(parseXml(xmlBody(body)).content).toEqual(xmlView(body));
  });

  it('never lets a key reach the builder as one of its own markers', () => {
    const body = tree({ '#text': 'a', ':@': 'b', '?xml': 'c', '@_nil': 'd' });
    const xml = xmlBody(body);
    expect(dataLines(xml)).toEqual([
      '  <data>',
      '    <entry key="#text">a</entry>',
      '    <entry key=":@">b</entry>',
      '    <entry key="?xml">c</entry>',
      '    <entry key="@_nil">d</entry>',
      '  </data>',
    ]);
  });
});

describe('rule 6: layout and attributes', () => {
  it('indents by two spaces, one element per line, and uses no attribute but nil and key', () => {
    const body = tree({ a: { b: [{ c: null, 'd e': 1 }] } });
    const lines = xmlBody(body).split('\n');
    expect(lines[0]).toBe('<?xml version="1.0" encoding="UTF-8"?>');
    for (const line of lines.slice(1)) {
      expect(line).toMatch(/^( {2})*<[^<]*(<\/[^<]+>)?$/);
      expect(line.match(/<[^<]*>/g)!.length).toBeLessThanOrEqual(2);
      for (const attribute of line.matchAll(/\s([\w:-]+)="/g)) expect(['nil', 'key']).toContain(attribute[1]);
      expect(line).not.toContain('xmlns');
    }
    expect(xmlBody(body).endsWith('</event>')).toBe(true);
  });
});
