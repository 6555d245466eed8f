/** The HTML body follows events.md §4.3 and escapes every piece of text. */
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../shared/flows/notifications/body';
import { htmlBody } from '../../../../shared/flows/notifications/body/body';
import type { JsonObject, JsonValue, NotificationTree } from '../../../../shared/flows/notifications/body/types';
import { exampleTree, htmlExampleTree } from './example';

/**
 * The §4.3 example, verbatim but for `49.0`, which renders as its JSON text `49` (see the XML
 * test). The contract abridges it: the envelope table shows four of its rows and the
 * `environment_variables` table is left out, so this is compared line by line in order; the
 * head and the `data` table are shown whole and are compared exactly.
 */
const contractHtml = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>order:created 170BDJ1VSRM9</title></head>
<body>
<h1>order:created</h1>
<table>
  <tr><th>event_id</th><td>170BDJ1VSRM9</td></tr>
  <tr><th>fingerprint</th><td>J8PNA5RNMKGE</td></tr>
  <tr><th>date_created</th><td>2026-11-21T11:15:02+01:00</td></tr>
  <tr><th>test</th><td>false</td></tr>
</table>
<h2>data</h2>
<table>
  <tr><th>order_id</th><td>3HE81X8T8P1B</td></tr>
  <tr><th>total</th><td>49.0</td></tr>
  <tr><th>items</th><td><table>
    <tr><th>0</th><td><table>
      <tr><th>name</th><td>Photo Editor Pro</td></tr>
      <tr><th>quantity</th><td>1</td></tr>
    </table></td></tr>
  </table></td></tr>
</table>
</body></html>`.replace('<td>49.0</td>', '<td>49</td>');

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const unescape = (text: string): string => text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => entities[name]!);

/** What a table says, read back from the markup: scalar cells as text, nested tables as [label, value] pairs. */
type Read = string | Array<[string, Read]>;

/**
 * A small reader for the body's own table markup: `<table>` rows of `<th>label</th><td>cell</td>`.
 * It refuses any tag it does not expect, so stray markup from data would fail it.
 */
function readTable(html: string, at: number): { value: Array<[string, Read]>; end: number } {
  const rows: Array<[string, Read]> = [];
  let pos = html.indexOf('<table>', at) + '<table>'.length;
  for (;;) {
    const next = html.slice(pos).match(/^\s*(<tr><th>|<\/table>)/);
    if (!next) throw new Error(`Unexpected markup at ${pos}: ${html.slice(pos, pos + 40)}`);
    pos += next[0].length;
    if (next[1] === '</table>') return { value: rows, end: pos };
    const thEnd = html.indexOf('</th><td>', pos);
    const label = html.slice(pos, thEnd);
    expect(label).not.toMatch(/[<>]/);
    pos = thEnd + '</th><td>'.length;
    if (html.startsWith('<table>', pos)) {
      const inner = readTable(html, pos);
      rows.push([unescape(label), inner.value]);
      pos = inner.end;
    } else {
      const tdEnd = html.indexOf('</td>', pos);
      const cell = html.slice(pos, tdEnd);
      expect(cell).not.toMatch(/[<>]/);
      rows.push([unescape(label), unescape(cell)]);
      pos = tdEnd;
    }
    expect(html.startsWith('</td></tr>', pos)).toBe(true);
    pos += '</td></tr>'.length;
  }
}

/** The tables of a body after each heading. */
function tables(html: string): { envelope: Read; environmentVariables: Read; data: Read } {
  const after = (marker: string) => readTable(html, html.indexOf(marker)).value;
  return { envelope: after('</h1>'), environmentVariables: after('<h2>environment_variables</h2>'), data: after('<h2>data</h2>') };
}

/** What a table should say for a JSON value: null as the word, arrays labelled by position. */
function htmlView(value: JsonValue): Read {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map((entry, index) => [String(index), htmlView(entry)]);
  if (typeof value === 'object') return Object.entries(value).map(([key, entry]) => [key, htmlView(entry)]);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function withData(data: JsonObject): NotificationTree {
  return { ...exampleTree(), data };
}

describe('the §4.3 example', () => {
  it('has the head and data table exactly as the contract shows them', () => {
    const html = htmlBody(htmlExampleTree());
    const lines = html.split('\n');
    const contract = contractHtml.split('\n');
    expect(lines.slice(0, 5)).toEqual(contract.slice(0, 5));
    expect(lines.slice(lines.indexOf('<h2>data</h2>'))).toEqual(contract.slice(contract.indexOf('<h2>data</h2>')));
  });

  it('shows every contract line, in order, in the full rendering', () => {
    const lines = htmlBody(htmlExampleTree()).split('\n');
    let at = 0;
    for (const line of contractHtml.split('\n')) {
      const found = lines.indexOf(line, at);
      expect(found, line).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
  });

  it('lays out the whole page: envelope in body order, then environment_variables, then data', () => {
    expect(htmlBody(htmlExampleTree()).split('\n').slice(4, 18)).toEqual([
      '<table>',
      '  <tr><th>object</th><td>event</td></tr>',
      '  <tr><th>event_id</th><td>170BDJ1VSRM9</td></tr>',
      '  <tr><th>fingerprint</th><td>J8PNA5RNMKGE</td></tr>',
      '  <tr><th>type</th><td>order:created</td></tr>',
      '  <tr><th>date_created</th><td>2026-11-21T11:15:02+01:00</td></tr>',
      '  <tr><th>test</th><td>false</td></tr>',
      '  <tr><th>account_id</th><td>XG5908XMX3MH</td></tr>',
      '</table>',
      '<h2>environment_variables</h2>',
      '<table>',
      '  <tr><th>ERP_CHANNEL</th><td>web</td></tr>',
      '</table>',
      '<h2>data</h2>',
    ]);
  });

  it('reads back to the same tree', () => {
    const tree = exampleTree();
    const { data, environment_variables: environmentVariables, ...envelope } = tree;
    expect(tables(htmlBody(tree))).toEqual({ envelope: htmlView(envelope), environmentVariables: htmlView(environmentVariables), data: htmlView(data) });
  });
});

describe('values', () => {
  it('shows null as the word null, booleans and numbers as JSON text', () => {
    const html = htmlBody(withData({ a: null, b: true, c: 0.1, d: -0, e: 1e21, f: Number.NaN }));
    expect(html).toContain('<tr><th>a</th><td>null</td></tr>\n  <tr><th>b</th><td>true</td></tr>\n  <tr><th>c</th><td>0.1</td></tr>\n  <tr><th>d</th><td>0</td></tr>\n  <tr><th>e</th><td>1e+21</td></tr>\n  <tr><th>f</th><td>null</td></tr>');
  });

  it('gives array entries one row each labelled by position, nested arrays included', () => {
    const data = { list: ['x', ['y', []], {}, null] };
    const html = htmlBody(withData(data));
    expect(html.split('\n').slice(html.split('\n').indexOf('<h2>data</h2>'))).toEqual([
      '<h2>data</h2>',
      '<table>',
      '  <tr><th>list</th><td><table>',
      '    <tr><th>0</th><td>x</td></tr>',
      '    <tr><th>1</th><td><table>',
      '      <tr><th>0</th><td>y</td></tr>',
      '      <tr><th>1</th><td><table></table></td></tr>',
      '    </table></td></tr>',
      '    <tr><th>2</th><td><table></table></td></tr>',
      '    <tr><th>3</th><td>null</td></tr>',
      '  </table></td></tr>',
      '</table>',
      '</body></html>',
    ]);
    expect(tables(html).data).toEqual(htmlView(data));
  });

  it('renders empty environment_variables and data as empty tables', () => {
    const html = htmlBody({ ...exampleTree(), environment_variables: {}, data: {} });
    expect(html).toContain('<h2>environment_variables</h2>\n<table></table>\n<h2>data</h2>\n<table></table>\n</body></html>');
  });
});

describe('escaping', () => {
  it('escapes text and attribute characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('never lets a <script> in a product name, a key, the type or an id become markup', () => {
    const script = '<script>alert("x")</script>';
    const tree: NotificationTree = {
      ...exampleTree(),
      event_id: `id${script}`,
      type: `order:created${script}`,
      environment_variables: { ERP: script },
      data: { items: [{ name: `Photo ${script} Pro` }], [`key${script}`]: `<img src=x onerror="alert(1)">`, amp: 'Tom & Jerry\'s "shop"' },
    };
    const html = htmlBody(tree);
    expect(html.toLowerCase()).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html.match(/<[a-z!/][^>]*>/gi)!.every((tag) => /^<\/?(!DOCTYPE html|html( lang="en")?|head|meta charset="utf-8"|title|body|h1|h2|table|tr|th|td)>$/.test(tag))).toBe(true);
    expect(html).toContain(`<title>order:created&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; id&lt;script&gt;`);
    const { data, environment_variables: environmentVariables, ...envelope } = tree;
    expect(tables(html)).toEqual({ envelope: htmlView(envelope), environmentVariables: htmlView(environmentVariables), data: htmlView(data) });
  });

  it('keeps unicode and shows controls HTML cannot carry as U+FFFD', () => {
    const data = { s: 'Ünïcødé 日本語 🎉 עברית', c: 'a\u0000b\u0007c\u007Fd\u0085e\tf\ng', lone: '\uD800x' };
    const html = htmlBody(withData(data));
    expect(html).toContain('<td>Ünïcødé 日本語 🎉 עברית</td>');
    expect(html).toContain('<td>a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\tf\ng</td>');
    expect(html).toContain('<td>\uFFFDx</td>');
  });
});
