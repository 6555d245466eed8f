/**
 * Delivery signatures (events.md §5, §5.1): known answers computed outside the code under test
 * (openssl, and node:crypto written from the contract text here), both schemes, the key
 * override, and the receiver's check refusing anything changed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonBody, renderBody, xmlBody } from '../../shared/flows/notifications/body/body';
import {
  WEBHOOK_TOLERANCE_SECONDS,
  serviceSignature,
  signatureHeaders,
  signingKey,
  standardWebhooksSecret,
  unixSeconds,
  verifyDelivery,
  webhookSignature,
} from '../../shared/outbound/signature';
import { exampleTree } from '../flows/notifications/body/example';

const body = '{"object":"event","event_id":"170BDJ1VSRM9","type":"order:created"}';
const key = 'whkey_0123456789abcdef';
const id = '170BDJ1VSRM9';
/** 2026-11-21T11:15:02+01:00, the example's date_created. */
const ts = 1795256102;

/** §5: base64(HMAC_SHA256(utf8(key), data)), written from the contract text. */
const hmac = (k: string, data: Buffer | string) => createHmac('sha256', Buffer.from(k, 'utf8')).update(data).digest('base64');

/** The §5.1 JavaScript recipe, as printed in the contract (types added). */
function contractVerify(rawBody: Buffer, headers: Record<string, string | undefined>, k: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const same = (a: string, b: string) => {
    const x = Buffer.from(a), y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };
  const mac = (data: Buffer) => createHmac('sha256', k).update(data).digest('base64');
  if (!same(mac(rawBody), headers['x-service-signature'] ?? '')) return false;
  const hid = headers['webhook-id'], hts = headers['webhook-timestamp'];
  if (Math.abs(nowSeconds - Number(hts)) > 300) return false;
  const expected = mac(Buffer.concat([Buffer.from(`${hid}.${hts}.`), rawBody]));
  return (headers['webhook-signature'] ?? '').split(' ').some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
}

/** Header names as a Node receiver sees them (lower case). */
const received = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe('known answers', () => {
  it('X-Service-Signature matches openssl over the body bytes', () => {
    // printf '%s' "$body" | openssl dgst -sha256 -hmac "$key" -binary | base64
    expect(serviceSignature(body, key)).toBe('+mr27fQSndt4bdHAb0GC/GqB3JR662yiGWhHHFhiXlM=');
    expect(serviceSignature(Buffer.from(body), key)).toBe('+mr27fQSndt4bdHAb0GC/GqB3JR662yiGWhHHFhiXlM=');
  });

  it('webhook-signature matches openssl over <id>.<timestamp>.<body>, with the v1, prefix', () => {
    // printf '%s' "$id.$ts.$body" | openssl dgst -sha256 -hmac "$key" -binary | base64
    expect(webhookSignature(id, ts, body, key)).toBe('v1,C+nZHfFMCk2/XQ1Wn5q/EVCOjxeCZ6n0DEB8mkG4x2Q=');
  });

  it('keys with the UTF-8 bytes of a non-ASCII key', () => {
    // openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf '%s' "$key" | xxd -p) -binary
    expect(serviceSignature(body, 'Ümlaut-Schlüssel-1234')).toBe('Ztx+8mRGzceQn7eK60C31sr7ckAwkrJlVl+2FqdiFs8=');
  });

  it('signs the UTF-8 bytes of every rendered format, unicode included', () => {
    const tree = { ...exampleTree(), data: { name: 'Ünïcødé 日本語 🎉 <&>' } };
    for (const format of ['json', 'xml', 'html'] as const) {
      const rendered = renderBody(format, tree).body;
      const utf8 = Buffer.from(rendered, 'utf8');
      expect(serviceSignature(rendered, key)).toBe(hmac(key, utf8));
      expect(webhookSignature(id, ts, rendered, key)).toBe(`v1,${hmac(key, Buffer.concat([Buffer.from(`${id}.${ts}.`), utf8]))}`);
    }
  });
});

describe('signatureHeaders', () => {
  it('gives the four headers of one attempt', () => {
    const rendered = xmlBody(exampleTree());
    const headers = signatureHeaders({ body: rendered, webhookId: id, timestamp: ts, key });
    expect(headers).toEqual({
      'X-Service-Signature': hmac(key, rendered),
      'webhook-id': id,
      'webhook-timestamp': '1795256102',
      'webhook-signature': `v1,${hmac(key, `${id}.${ts}.${rendered}`)}`,
    });
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signatureHeaders({ body, webhookId: id, timestamp: 1795256102.5, key })).toThrow(RangeError);
    expect(() => signatureHeaders({ body, webhookId: id, timestamp: 1795256102123, key })).toThrow(RangeError); // milliseconds
    expect(() => webhookSignature(id, -1, body, key)).toThrow(RangeError);
    expect(unixSeconds(new Date('2026-11-21T11:15:02.999+01:00'))).toBe(ts);
  });

  it('passes the contract own §5.1 recipe and verifyDelivery', () => {
    const headers = received({ ...signatureHeaders({ body, webhookId: id, timestamp: ts, key }) });
    expect(contractVerify(Buffer.from(body), headers, key, ts)).toBe(true);
    expect(verifyDelivery(body, headers, key, ts)).toBe(true);
  });
});

describe('the key', () => {
  const accountKey = 'account-key-0123456789abcdef0123';
  const overrideKey = 'subscription-override-key';

  it('is the subscription override when set, otherwise the account key', () => {
    expect(signingKey(accountKey, overrideKey)).toBe(overrideKey);
    expect(signingKey(accountKey, null)).toBe(accountKey);
    expect(signingKey(accountKey, undefined)).toBe(accountKey);
    expect(signingKey(accountKey)).toBe(accountKey);
  });

  it('signs with the override, so the account key no longer verifies', () => {
    const headers = received({ ...signatureHeaders({ body, webhookId: id, timestamp: ts, key: signingKey(accountKey, overrideKey) }) });
    expect(headers['x-service-signature']).toBe(hmac(overrideKey, body));
    expect(verifyDelivery(body, headers, overrideKey, ts)).toBe(true);
    expect(verifyDelivery(body, headers, accountKey, ts)).toBe(false);
  });

  it('gives Standard Webhooks libraries whsec_ + base64 of the key bytes, which sign the same', () => {
    const secret = standardWebhooksSecret('Ümlaut-Schlüssel-1234');
    expect(secret).toBe(`whsec_${Buffer.from('Ümlaut-Schlüssel-1234', 'utf8').toString('base64')}`);
    // What such a library does: strip whsec_, base64-decode, HMAC with the bytes.
    const keyBytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const theirs = createHmac('sha256', keyBytes).update(`${id}.${ts}.${body}`).digest('base64');
    expect(webhookSignature(id, ts, body, 'Ümlaut-Schlüssel-1234')).toBe(`v1,${theirs}`);
  });
});

describe('verifyDelivery refuses what changed', () => {
  const rendered = jsonBody(exampleTree());
  const good = received({ ...signatureHeaders({ body: rendered, webhookId: id, timestamp: ts, key }) });

  it('accepts the delivery as sent, as a string or as bytes, with any header case', () => {
    expect(verifyDelivery(rendered, good, key, ts)).toBe(true);
    expect(verifyDelivery(Buffer.from(rendered), good, key, ts)).toBe(true);
    expect(verifyDelivery(new Uint8Array(Buffer.from(rendered)), good, key, ts)).toBe(true);
    expect(verifyDelivery(rendered, signatureHeaders({ body: rendered, webhookId: id, timestamp: ts, key }) as unknown as Record<string, string>, key, ts)).toBe(true);
  });

  it('fails on a changed body', () => {
    const changed = rendered.replace('"total":49', '"total":4.9');
    expect(changed).not.toBe(rendered);
    expect(verifyDelivery(changed, good, key, ts)).toBe(false);
    expect(verifyDelivery(`${rendered} `, good, key, ts)).toBe(false);
    expect(contractVerify(Buffer.from(changed), good, key, ts)).toBe(false);
  });

  it('fails on a changed timestamp, even inside the window', () => {
    const shifted = { ...good, 'webhook-timestamp': String(ts + 1) };
    expect(verifyDelivery(rendered, shifted, key, ts)).toBe(false);
    expect(contractVerify(Buffer.from(rendered), shifted, key, ts)).toBe(false);
  });

  it('fails on a changed id, key or signature', () => {
    expect(verifyDelivery(rendered, { ...good, 'webhook-id': 'OTHER' }, key, ts)).toBe(false);
    expect(verifyDelivery(rendered, good, `${key}x`, ts)).toBe(false);
    expect(verifyDelivery(rendered, { ...good, 'x-service-signature': hmac(key, 'other') }, key, ts)).toBe(false);
    expect(verifyDelivery(rendered, { ...good, 'webhook-signature': good['webhook-signature']!.replace('v1,', 'v2,') }, key, ts)).toBe(false);
    expect(verifyDelivery(rendered, { ...good, 'webhook-signature': undefined as unknown as string }, key, ts)).toBe(false);
  });

  it('fails outside 300 seconds and accepts at the edge', () => {
    expect(WEBHOOK_TOLERANCE_SECONDS).toBe(300);
    expect(verifyDelivery(rendered, good, key, ts + 300)).toBe(true);
    expect(verifyDelivery(rendered, good, key, ts - 300)).toBe(true);
    expect(verifyDelivery(rendered, good, key, ts + 301)).toBe(false);
    expect(verifyDelivery(rendered, good, key, ts - 301)).toBe(false);
  });

  it('fails on a missing or non-numeric timestamp', () => {
    const { 'webhook-timestamp': _omit, ...noTimestamp } = good;
    expect(verifyDelivery(rendered, noTimestamp, key, ts)).toBe(false);
    expect(verifyDelivery(rendered, { ...good, 'webhook-timestamp': '1795256102.0' }, key, ts)).toBe(false);
  });

  it('accepts any space-separated v1 entry (key rotation)', () => {
    const rotated = { ...good, 'webhook-signature': `v1,${hmac('old-key', 'x')} ${good['webhook-signature']}` };
    expect(verifyDelivery(rendered, rotated, key, ts)).toBe(true);
    expect(contractVerify(Buffer.from(rendered), rotated, key, ts)).toBe(true);
  });
});
