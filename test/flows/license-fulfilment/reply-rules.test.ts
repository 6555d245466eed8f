/** The reply rules of licenses.md §5.3 as `judgeReply` applies them to what the outbound port answered. */
import { describe, expect, it } from 'vitest';
import { judgeReply, MAX_LICENSE_CHARS } from '../../../shared/flows/license-fulfilment/attempt';
import type { OutboundResponse } from '../../../shared/platform/ports';

const reply = (status: number, body: string): OutboundResponse => ({ ok: true, status, headers: {}, body });

describe('license reply rules', () => {
  it('takes a 2xx body, trimmed and sanitised, as the code (the contract example)', () => {
    const judged = judgeReply(reply(200, "  <p class='k'>Serial: <b>PE-4471-AZQ</b><br/>Valid for 2 PCs</p><script>x()</script> "), 30_000);
    expect(judged).toEqual({ license: 'Serial: <b>PE-4471-AZQ</b><br>Valid for 2 PCs' });
    expect(judgeReply(reply(201, 'K'), 30_000)).toEqual({ license: 'K' });
    expect(judgeReply(reply(299, 'K'), 30_000)).toEqual({ license: 'K' });
  });

  it('counts code points: 4,096 pass, 4,097 are too long, astral characters count once', () => {
    expect(judgeReply(reply(200, 'x'.repeat(MAX_LICENSE_CHARS)), 30_000)).toHaveProperty('license');
    expect(judgeReply(reply(200, 'x'.repeat(MAX_LICENSE_CHARS + 1)), 30_000)).toEqual({ error: expect.objectContaining({ code: 'response_too_long' }) });
    expect(judgeReply(reply(200, '😀'.repeat(MAX_LICENSE_CHARS)), 30_000)).toHaveProperty('license');
    expect(judgeReply(reply(200, `   ${'x'.repeat(MAX_LICENSE_CHARS)}\n\n`), 30_000)).toHaveProperty('license');
  });

  it('fails an empty body, and one with no visible text once sanitised', () => {
    for (const body of ['', '   \n\t ', '<script>k()</script>', '<p></p>', '<!-- key -->']) {
      expect(judgeReply(reply(200, body), 30_000), JSON.stringify(body)).toEqual({ error: expect.objectContaining({ code: 'empty_response' }) });
    }
  });

  it('fails other statuses: redirects are not followed, 410 means nothing special', () => {
    expect(judgeReply(reply(302, 'K'), 30_000)).toEqual({ error: expect.objectContaining({ code: 'redirect' }) });
    for (const status of [100, 199, 400, 404, 410, 500, 503]) {
      const judged = judgeReply(reply(status, 'K'), 30_000);
      expect(judged, String(status)).toEqual({ error: expect.objectContaining({ code: 'http_status', message: `The script answered ${status}` }) });
    }
  });

  it('names what happened when no reply came', () => {
    expect(judgeReply({ ok: false, reason: 'timeout', message: 'x' }, 30_000)).toEqual({ error: { code: 'timeout', message: 'No complete reply within 30 seconds' } });
    expect(judgeReply({ ok: false, reason: 'refused_address', message: 'The address 10.0.0.1 is not allowed' }, 30_000)).toEqual({ error: { code: 'destination_not_allowed', message: 'The address 10.0.0.1 is not allowed' } });
    expect(judgeReply({ ok: false, reason: 'network', message: 'connect ECONNREFUSED 127.0.0.1:9' }, 30_000)).toEqual({ error: expect.objectContaining({ code: 'connection_error' }) });
    expect(judgeReply({ ok: false, reason: 'network', message: 'getaddrinfo ENOTFOUND keys.example.test' }, 30_000)).toEqual({ error: expect.objectContaining({ code: 'dns_error' }) });
  });
});
