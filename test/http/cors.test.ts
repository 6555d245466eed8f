import { describe, expect, it, vi } from 'vitest';
import { isOriginAllowed } from '../../shared/http/cors';

const check = (origin: string, allowList: string[] = []) => {
  const load = vi.fn(async () => allowList);
  return { load, result: isOriginAllowed({ origin, scheme: 'https', host: 'api.example.test', accountId: 'ACCT1', appsDomain: 'apps.example.test', allowList: load }) };
};

describe('CORS origin rules (conventions.md 16)', () => {
  it('allows the request host itself without reading settings', async () => {
    const { load, result } = check('https://api.example.test');
    expect(await result).toBe(true);
    expect(load).not.toHaveBeenCalled();
  });

  it('always allows localhost and 127.0.0.1 on any scheme or port', async () => {
    for (const origin of ['http://localhost:5173', 'https://localhost', 'http://127.0.0.1:8080']) {
      expect(await check(origin).result).toBe(true);
    }
  });

  it("allows the account's own app host", async () => {
    expect(await check('https://acct1.apps.example.test').result).toBe(true);
    expect(await check('https://other.apps.example.test').result).toBe(false);
  });

  it('allows exact entries of the allow-list only', async () => {
    expect(await check('https://shop.example.com', ['https://shop.example.com']).result).toBe(true);
    expect(await check('https://shop.example.com:444', ['https://shop.example.com']).result).toBe(false);
    expect(await check('https://evil.example.com', ['https://shop.example.com']).result).toBe(false);
  });

  it('refuses null and malformed origins', async () => {
    expect(await check('null').result).toBe(false);
    expect(await check('not a url').result).toBe(false);
    expect(await check('https://localhost.evil.com').result).toBe(false);
  });
});
