/** The §4.1 tree and its compact JSON, and the content type of each format (events.md §4). */
import { describe, expect, it } from 'vitest';
import { contentTypes, htmlBody, jsonBody, notificationTree, renderBody, xmlBody } from '../../../../shared/flows/notifications/body/body';
import { exampleTree } from './example';

/** The §4.1 example, verbatim. */
const contractJson = `{
  "object": "event",
  "event_id": "170BDJ1VSRM9",
  "fingerprint": "J8PNA5RNMKGE",
  "type": "order:created",
  "date_created": "2026-11-21T11:15:02+01:00",
  "test": false,
  "account_id": "XG5908XMX3MH",
  "environment_variables": {"ERP_CHANNEL": "web"},
  "data": {
    "object": "order",
    "url": "https://api.example.test/api/v1/orders/3HE81X8T8P1B",
    "order_id": "3HE81X8T8P1B",
    "payment_status": "completed",
    "currency": "USD",
    "total": 49.0,
    "promotion": null,
    "customer": {"object": "customer", "customer_id": "73HHWERD1E41", "name": "Ana Ruiz", "email": "ana@example.org"},
    "items": [
      {"object": "order_item", "item_id": "photo-editor-pro", "product_id": "photo-editor-pro", "name": "Photo Editor Pro",
       "quantity": 1, "total": 49.0, "license": null, "license_pending": true}
    ]
  }
}`;

describe('notificationTree', () => {
  it('builds the §4.1 object in the contract order', () => {
    const tree = exampleTree();
    expect(Object.keys(tree)).toEqual(['object', 'event_id', 'fingerprint', 'type', 'date_created', 'test', 'account_id', 'environment_variables', 'data']);
    expect(tree).toEqual(JSON.parse(contractJson));
  });

  it('takes the date as given (already in the subscription zone) and data untouched', () => {
    const data = { object: 'order', date_created: '2026-07-01T10:00:00-04:00' };
    const tree = notificationTree({ eventId: 'e', fingerprint: 'f', type: 'order:created', dateCreated: '2026-07-01T10:00:00-04:00', test: true, accountId: 'a', environmentVariables: {}, data });
    expect(tree.date_created).toBe('2026-07-01T10:00:00-04:00');
    expect(tree.test).toBe(true);
    expect(tree.data).toBe(data);
  });
});

describe('jsonBody', () => {
  it('is compact: the contract example without its whitespace, keys in the same order', () => {
    const body = jsonBody(exampleTree());
    expect(body).toBe(JSON.stringify(JSON.parse(contractJson)));
    expect(body.startsWith('{"object":"event","event_id":"170BDJ1VSRM9","fingerprint":"J8PNA5RNMKGE","type":"order:created",')).toBe(true);
    expect(body).not.toMatch(/[\n\r\t]|": |, "/);
  });

  it('keeps spaces inside strings and escapes what JSON must escape', () => {
    const body = jsonBody({ ...exampleTree(), data: { s: 'a b\n"q"\u0001', u: 'é 🎉', '2nd': null, 'a b': [], obj: {} } });
    expect(body).toContain('"data":{"s":"a b\\n\\"q\\"\\u0001","u":"é 🎉","2nd":null,"a b":[],"obj":{}}');
    expect(JSON.parse(body).data.s).toBe('a b\n"q"\u0001');
  });
});

describe('renderBody', () => {
  it('renders each format with its content type', () => {
    const tree = exampleTree();
    expect(renderBody('json', tree)).toEqual({ contentType: 'application/json', body: jsonBody(tree) });
    expect(renderBody('xml', tree)).toEqual({ contentType: 'application/xml; charset=utf-8', body: xmlBody(tree) });
    expect(renderBody('html', tree)).toEqual({ contentType: 'text/html; charset=utf-8', body: htmlBody(tree) });
    expect(contentTypes).toEqual({ json: 'application/json', xml: 'application/xml; charset=utf-8', html: 'text/html; charset=utf-8' });
  });

  it('renders the same bytes every time (the body is reused on every attempt)', () => {
    for (const format of ['json', 'xml', 'html'] as const) expect(renderBody(format, exampleTree()).body).toBe(renderBody(format, exampleTree()).body);
  });
});

describe('the module surface', () => {
  it('offers the renderers and signatures from index', async () => {
    const surface = await import('../../../../shared/flows/notifications/body');
    expect(Object.keys(surface).sort()).toEqual(
      ['WEBHOOK_TOLERANCE_SECONDS', 'contentTypes', 'escapeHtml', 'htmlBody', 'isXmlElementName', 'jsonBody', 'notificationTree', 'renderBody', 'serviceSignature', 'signatureHeaders', 'signingKey', 'standardWebhooksSecret', 'unixSeconds', 'verifyDelivery', 'webhookSignature', 'xmlBody'].sort(),
    );
  });
});
