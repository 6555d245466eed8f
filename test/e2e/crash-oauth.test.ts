/**
 * OAuth grants survive `kill -9` (auth.md 6.3): every issue is one transaction (the code or
 * refresh token spent, the grant stored or moved on, the new tokens stored), so what a killed
 * runtime answered is exactly what the restarted one knows. After the restart the spent code and
 * the spent refresh token are still recognised: presenting either again is refused and revokes
 * the grant, and the newest refresh token of a grant works once.
 */
import { expect, it } from 'vitest';
import { authorizeThrough, pkcePair, queryOf, tokenRequest } from '../support/oauth';
import { api, startRuntime } from '../support/runtime-process';

const CALLBACK = 'https://app.example.test/cb';

it('keeps spent codes and refresh tokens spent, and live tokens live, across kill -9', async () => {
  const runtime = await startRuntime({ env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  const base = runtime.bootstrap.api_url;
  const made = await api(`${base}oauth_apps`, { method: 'POST', token: runtime.bootstrap.tokens.live_secret, body: { name: 'Durable', redirect_uris: [CALLBACK] } });
  expect(made.status, made.text).toBe(201);
  const basic = { clientId: made.body.client_id, secret: made.body.client_secret };
  const grant = async () => {
    const { verifier, challenge } = pkcePair();
    const answer = await authorizeThrough(runtime.bootstrap.signin_url, { response_type: 'code', client_id: basic.clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256' }, 'owner', runtime.bootstrap.owner.password);
    const code = queryOf(answer.location).code!;
    const tokens = await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }, { basic });
    expect(tokens.status, tokens.text).toBe(200);
    return { code, verifier, tokens: tokens.body };
  };
  const first = await grant();
  const second = await grant();
  const rotated = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: second.tokens.refresh_token }, { basic });
  expect(rotated.status, rotated.text).toBe(200);

  await runtime.kill9();
  const restarted = await startRuntime({ dataDir: runtime.dataDir, env: { PORT: String(runtime.port), CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  try {
    // What was issued before the kill works after it.
    expect((await api(`${base}users/me`, { token: first.tokens.access_token })).status).toBe(200);
    expect((await api(`${base}users/me`, { token: rotated.body.access_token })).status).toBe(200);
    // The spent code is still spent: refused, and the first grant is revoked.
    const again = await tokenRequest(base, { grant_type: 'authorization_code', code: first.code, redirect_uri: CALLBACK, code_verifier: first.verifier }, { basic });
    expect(again.body.error?.meta?.oauth_error, again.text).toBe('invalid_grant');
    expect((await api(`${base}users/me`, { token: first.tokens.access_token })).status).toBe(401);
    // The newest refresh token of the second grant works once; the spent one then revokes the grant.
    const next = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token }, { basic });
    expect(next.status, next.text).toBe(200);
    const reused = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: second.tokens.refresh_token }, { basic });
    expect(reused.body.error?.meta?.oauth_error, reused.text).toBe('invalid_grant');
    expect((await api(`${base}users/me`, { token: next.body.access_token })).status).toBe(401);
  } finally {
    expect(await restarted.stop()).toBe(0);
  }
}, 240_000);
