/**
 * The signed outbound attempt (shared/outbound/attempt.ts, errors.ts): header order and
 * credentials with their redacted record, the measures of a reply and of a timeout, the log
 * entry, and the errors of an attempt that got no reply.
 */
import { describe, expect, it } from 'vitest';
import type { OutboundHttp, OutboundRequest, OutboundResponse } from '../../shared/platform/ports';
import { attemptEntry, KEPT_RESPONSE_CHARS, sendSigned, signedHeaders, type SignedRequest } from '../../shared/outbound/attempt';
import { transportError } from '../../shared/outbound/errors';
import { signatureHeaders } from '../../shared/outbound/signature';

const none = { username: null, password: null, authorization: null, headerName: null, headerValue: null };
const request: SignedRequest = { url: 'https://hooks.example.test/in', body: '{"a":1}', contentType: 'application/json', userAgent: 'Test/1.0', webhookId: 'ID1', key: 'k', credentials: none };
const ts = 1_795_256_102;

/** An outbound port that answers `response` and keeps what it was asked. */
function port(response: OutboundResponse): OutboundHttp & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return { sent, send: async (req) => (sent.push(req), response), allowsDestination: async () => true };
}

describe('signedHeaders', () => {
  it('writes content type, user agent, the caller headers, then the signatures, in that order', () => {
    const { sent, recorded } = signedHeaders({ ...request, headers: { 'X-Event-Type': 'order:created' } }, ts);
    expect(Object.keys(sent)).toEqual(['Content-Type', 'User-Agent', 'X-Event-Type', 'X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(sent).toMatchObject(signatureHeaders({ body: request.body, webhookId: 'ID1', timestamp: ts, key: 'k' }));
    expect(recorded).toEqual(sent);
  });

  it('sends Basic before a raw Authorization value and the custom header when complete, recording them redacted', () => {
    const credentials = { username: 'ana', password: 'pw', authorization: 'Bearer x', headerName: 'X-Tenant', headerValue: 't1' };
    const { sent, recorded } = signedHeaders({ ...request, credentials }, ts);
    expect(sent).toMatchObject({ Authorization: `Basic ${Buffer.from('ana:pw').toString('base64')}`, 'X-Tenant': 't1' });
    expect(recorded).toMatchObject({ Authorization: '[redacted]', 'X-Tenant': '[redacted]' });
    expect(signedHeaders({ ...request, credentials: { ...credentials, password: null } }, ts).sent.Authorization).toBe('Bearer x');
    const incomplete = signedHeaders({ ...request, credentials: { ...none, username: 'ana', headerName: 'X-Tenant' } }, ts).sent;
    expect(incomplete).not.toHaveProperty('Authorization');
    expect(incomplete).not.toHaveProperty('X-Tenant');
  });
});

describe('sendSigned', () => {
  it('POSTs the signed body within the limit and keeps 2,048 characters of the reply', async () => {
    const http = port({ ok: true, status: 200, headers: {}, body: 'x'.repeat(3000) });
    const { measured, recordedHeaders } = await sendSigned(http, request, { signedAtMs: ts * 1000 + 999, timeoutMs: 5000 });
    expect(http.sent).toEqual([{ url: request.url, method: 'POST', headers: recordedHeaders, body: request.body, timeoutMs: 5000 }]);
    expect(recordedHeaders['webhook-timestamp']).toBe(String(ts));
    expect(measured).toMatchObject({ status_code: 200, response_body: 'x'.repeat(KEPT_RESPONSE_CHARS) });
  });

  it('counts a timed-out attempt as lasting at least the limit, with no status or reply', async () => {
    const { measured } = await sendSigned(port({ ok: false, reason: 'timeout', message: 'timed out' }), request, { signedAtMs: 0, timeoutMs: 5000 });
    expect(measured).toEqual({ status_code: null, duration_ms: 5000, response_body: null });
  });
});

describe('the attempt log entry', () => {
  it('is a success exactly when it has no error', () => {
    const result = { status_code: 500, duration_ms: 3, response_body: 'no' };
    expect(attemptEntry({ number: 2, trigger: 'manual' }, 7, 'd', { ...result, error: { code: 'http_status', message: 'm' } })).toEqual({
      attempt: 2,
      trigger: 'manual',
      date_ms: 7,
      destination: 'd',
      success: false,
      ...result,
      error: { code: 'http_status', message: 'm' },
    });
    expect(attemptEntry({ number: 1, trigger: 'automatic' }, 7, 'd', { ...result, error: null }).success).toBe(true);
  });
});

describe('transportError', () => {
  it('names the limit of a timeout, the address guard, and the network failure', () => {
    expect(transportError({ ok: false, reason: 'timeout', message: '' }, 25_000)).toEqual({ code: 'timeout', message: 'No complete reply within 25 seconds' });
    expect(transportError({ ok: false, reason: 'refused_address', message: 'blocked' }, 1)).toEqual({ code: 'destination_not_allowed', message: 'blocked' });
    expect(transportError({ ok: false, reason: 'network', message: 'getaddrinfo ENOTFOUND x' }, 1)).toEqual({ code: 'dns_error', message: 'getaddrinfo ENOTFOUND x' });
  });
});

describe('sendSigned with a traceparent', () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01';

  it('sends it after the signatures and leaves it out of the recorded headers', async () => {
    const http = port({ ok: true, status: 200, headers: {}, body: 'ok' });
    const sent = await sendSigned(http, { ...request, traceparent }, { signedAtMs: ts * 1000, timeoutMs: 1000 });
    expect(http.sent[0]!.headers).toMatchObject({ traceparent, 'webhook-id': 'ID1' });
    expect(Object.keys(http.sent[0]!.headers!).at(-1)).toBe('traceparent');
    expect(sent.recordedHeaders).not.toHaveProperty('traceparent');
  });

  it('sends none without one, and keeps a receiver custom header of that name as the merchant set it', async () => {
    const plain = port({ ok: true, status: 200, headers: {}, body: 'ok' });
    await sendSigned(plain, request, { signedAtMs: ts * 1000, timeoutMs: 1000 });
    expect(Object.keys(plain.sent[0]!.headers!).map((name) => name.toLowerCase())).not.toContain('traceparent');
    const custom = port({ ok: true, status: 200, headers: {}, body: 'ok' });
    await sendSigned(custom, { ...request, traceparent, credentials: { ...none, headerName: 'Traceparent', headerValue: 'merchant' } }, { signedAtMs: ts * 1000, timeoutMs: 1000 });
    expect(custom.sent[0]!.headers).toMatchObject({ Traceparent: 'merchant' });
    expect(custom.sent[0]!.headers).not.toHaveProperty('traceparent');
  });
});
