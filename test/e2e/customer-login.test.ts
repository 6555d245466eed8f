/**
 * Customer sign-in over HTTP against a real local runtime with the manual clock
 * (commerce.md §6.2, §3.5; auth.md 3.3, 5.3): `POST /customers/login` answers the customer and
 * a new customer-scope token, `/customers/me` serves that scope, a limited caller gains the
 * customer as one binding, carts sign customers in and out, and the lockout refuses the sixth
 * attempt until ten minutes have passed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntime, type RuntimeProcess } from '../support/runtime-process';

let runtime: RuntimeProcess;
let base: string;
let account: string;
let secret: string;

type Response = Awaited<ReturnType<typeof api>>;

const PASSWORD = 'open sesame';
const INCORRECT = 'The username or password is incorrect.';

function expectError(response: Response, status: number, code: string, meta?: Record<string, unknown>): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error).toMatchObject({ code, status });
  if (meta !== undefined) expect(response.body.error.meta).toMatchObject(meta);
}

/** A test-mode customer with a login, created with the secret token. */
async function customer(id: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const created = await api(`${base}customers`, {
    method: 'POST',
    token: secret,
    body: { customer_id: id, username: `${id}-user`, password: PASSWORD, name: `Customer ${id}`, email: `${id.toLowerCase()}@example.test`, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** `POST /customers/login`, anonymous in test mode unless a token is given. */
function login(username: string, password: string, options: { token?: string; query?: string } = {}): Promise<Response> {
  const query = options.query ?? (options.token ? '' : `account_id=${account}&test=true`);
  return api(`${base}customers/login?${query}`, { method: 'POST', body: { username, password }, ...(options.token ? { token: options.token } : {}) });
}

/** A fresh test limited token (a shopper). */
async function shopper(): Promise<string> {
  const minted = await api(`${base}auths/limited?account_id=${account}&test=true`, { method: 'POST', token: secret });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

async function advanceClock(seconds: number): Promise<void> {
  expect((await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } })).status).toBe(200);
}

beforeAll(async () => {
  runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  base = runtime.bootstrap.api_url;
  account = runtime.bootstrap.account_id;
  secret = runtime.bootstrap.tokens.test_secret;
  expect((await api(`${base}settings/tax`, { method: 'POST', token: secret, body: { rules: [{ country: 'US', state_prov: null, rate: 0.1 }] } })).status).toBe(200);
  expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
  const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
  expect(product.status, product.text).toBe(201);
});
afterAll(async () => {
  expect(await runtime.stop()).toBe(0);
});

describe('POST /customers/login', () => {
  it('answers the customer with the URL of a new customer-scope token, described by the expiry header', async () => {
    const ada = await customer('ADA');
    const signedIn = await login('ADA-USER', PASSWORD);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body).toMatchObject({ object: 'customer', customer_id: 'ADA', url: ada.url, username: 'ADA-user', test: true, account_id: account });
    expect(signedIn.body.auth).toMatch(new RegExp(`^${base}auths/[0-9A-Z]+$`));
    expect(signedIn.text).not.toContain('password');
    expect(signedIn.headers.get('x-token-expires-in-seconds')).toBe('1209600');

    const auth = await api(signedIn.body.auth, { token: secret });
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({ type: 'limited', test: true, customer: ada.url, bindings: [], bindings_count: 0 });
    expect(auth.body.token).toMatch(/^lt\.test\.\.\.\w{4}$/);
  });

  it('gives the token itself with expand=auth; it reads and updates its own customer and nothing else', async () => {
    const bea = await customer('BEA', { tax_exempt: false });
    const other = await customer('CAL');
    const signedIn = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth`, { method: 'POST', body: { username: 'bea-user', password: PASSWORD } });
    expect(signedIn.status, signedIn.text).toBe(200);
    const auth = signedIn.body.auth;
    expect(auth).toMatchObject({ object: 'auth', type: 'limited', test: true, customer: bea.url, expires_in_seconds: 1209600 });
    expect(auth.token).toMatch(/^lt\.test\.[0-9A-Za-z]{40}$/);
    const token: string = auth.token;

    const me = await api(`${base}customers/me`, { token });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ customer_id: 'BEA', url: bea.url, name: 'Customer BEA' });
    expect((await api(bea.url, { token })).body).toMatchObject({ customer_id: 'BEA' });
    expectError(await api(other.url, { token }), 404, 'resource_not_found');
    expectError(await api(`${base}customers`, { token }), 403, 'insufficient_permissions');

    // A partial update; tax_exempt is read-only for customer scope.
    const updated = await api(`${base}customers/me`, { method: 'POST', token, body: { name: 'Bea Renamed', tax_exempt: true, billing_address: { country: 'CA' } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ customer_id: 'BEA', name: 'Bea Renamed', tax_exempt: false, billing_address: { country: 'CA' } });
    expect((await api(bea.url, { token: secret })).body).toMatchObject({ name: 'Bea Renamed', tax_exempt: false });
    expectError(await api(`${base}customers/me`, { method: 'POST', token, body: { username: 'cal-user' } }), 409, 'in_use');
    expectError(await api(`${base}customers/me`, { method: 'POST', token, body: { password: 'short' } }), 400, 'invalid_input', { property: 'password', reason: 'too_short' });
    // The customer's own URL takes the same update; another customer's is out of reach.
    const direct = await api(bea.url, { method: 'POST', token, body: { name: 'Bea Direct', tax_exempt: true } });
    expect(direct.status, direct.text).toBe(200);
    expect(direct.body).toMatchObject({ customer_id: 'BEA', name: 'Bea Direct', tax_exempt: false, username: 'BEA-user' });
    expectError(await api(bea.url, { method: 'POST', token, body: { username: 'cal-user' } }), 409, 'in_use');
    expectError(await api(other.url, { method: 'POST', token, body: { name: 'Not mine' } }), 404, 'resource_not_found');
    expect((await api(other.url, { token: secret })).body.name).toBe('Customer CAL');

    // The show/hide of the answer apply to the virtual auth too.
    const shaped = await api(`${base}customers/login?account_id=${account}&test=true&expand=auth&show=customer_id,auth.token`, {
      method: 'POST',
      body: { username: 'bea-user', password: PASSWORD },
    });
    expect(shaped.status).toBe(200);
    expect(Object.keys(shaped.body).sort()).toEqual(['auth', 'customer_id', 'url']);
    expect(shaped.body.auth.token).toMatch(/^lt\.test\.[0-9A-Za-z]{40}$/);
  });

  it('serves /customers/me only to customer-scope tokens', async () => {
    expectError(await api(`${base}customers/me`, { token: secret }), 404, 'resource_not_found');
    expectError(await api(`${base}customers/me`, { token: await shopper() }), 404, 'resource_not_found');
    expectError(await api(`${base}customers/me`, { method: 'POST', token: secret, body: { name: 'x' } }), 404, 'resource_not_found');
    expectError(await api(`${base}customers/me`), 401, 'invalid_token');
  });

  it('refuses wrong passwords, unknown usernames and customers without a password alike', async () => {
    await customer('DAN');
    const nopass = await api(`${base}customers`, { method: 'POST', token: secret, body: { customer_id: 'NOPASS', username: 'nopass' } });
    expect(nopass.status).toBe(201);
    for (const [username, password] of [
      ['dan-user', 'wrong password'],
      ['nobody', PASSWORD],
      ['nopass', PASSWORD],
    ]) {
      const refused = await login(username!, password!);
      expectError(refused, 401, 'invalid_login');
      expect(refused.body.error.message).toBe(INCORRECT);
    }
    // The live mode has no such customer.
    expectError(await login('dan-user', PASSWORD, { query: `account_id=${account}` }), 401, 'invalid_login');
  });

  it('needs an account, and with a token uses its account and mode', async () => {
    await customer('EVE');
    expectError(await login('eve-user', PASSWORD, { query: '' }), 400, 'invalid_input');
    expect((await login('eve-user', PASSWORD, { query: '' })).body.error.meta).toMatchObject({ parameter: 'account_id' });
    expectError(await login('eve-user', PASSWORD, { query: 'account_id=NOSUCHACCOUNT&test=true' }), 404, 'resource_not_found');
    expectError(await login('eve-user', PASSWORD, { token: secret, query: 'account_id=OTHER1234567' }), 403, 'insufficient_permissions');
    expect((await login('eve-user', PASSWORD, { token: secret })).status).toBe(200);
    expect((await login('eve-user', PASSWORD, { token: runtime.bootstrap.tokens.live_secret })).status).toBe(401);
    expectError(await api(`${base}customers/login?account_id=${account}&test=true`, { method: 'POST', body: { username: 'eve-user' } }), 400, 'invalid_input', { property: 'password', reason: 'required' });
    expectError(await api(`${base}customers/login?account_id=${account}&test=true`, { method: 'POST', body: { username: 12345678, password: PASSWORD } }), 400, 'invalid_input', { property: 'username', reason: 'invalid' });
    expectError(await api(`${base}customers/login?account_id=${account}&test=true`, { method: 'POST', body: { username: null, password: PASSWORD } }), 400, 'invalid_input', { property: 'username', reason: 'required' });
  });

  it('locks a username after five failures: 401 account_locked with Retry-After, even with the right password, for ten minutes', async () => {
    await customer('FAY');
    for (let i = 0; i < 5; i++) expectError(await login('fay-user', `wrong ${i}`), 401, 'invalid_login');
    const locked = await login('fay-user', PASSWORD);
    expectError(locked, 401, 'account_locked');
    expect(locked.headers.get('retry-after')).toBe('600');
    expect(locked.body.error.meta).toEqual({ retry_after_seconds: 600 });
    // Other usernames are unaffected; the lock covers cart sign-in too.
    expect((await login('eve-user', PASSWORD)).status).toBe(200);
    const token = await shopper();
    const cart = await api(`${base}carts`, { method: 'POST', token, body: {} });
    expectError(await api(`${cart.body.url}/login`, { method: 'POST', token, body: { username: 'FAY-user', password: PASSWORD } }), 401, 'account_locked');

    await advanceClock(300);
    const later = await login('fay-user', 'wrong again');
    expectError(later, 401, 'account_locked');
    expect(later.headers.get('retry-after')).toBe('300');
    await advanceClock(300);
    expect((await login('fay-user', PASSWORD)).status).toBe(200);
  });

  it('gives a limited caller customer scope as one binding, and refuses the 21st binding before issuing anything', async () => {
    const gus = await customer('GUS');
    const token = await shopper();
    const signedIn = await login('gus-user', PASSWORD, { token });
    expect(signedIn.status, signedIn.text).toBe(200);
    const own = await api(`${base}auths/me`, { token });
    expect(own.body).toMatchObject({ bindings: [gus.url], bindings_count: 1, customer: gus.url });
    expect((await api(`${base}customers/me`, { token })).body).toMatchObject({ customer_id: 'GUS' });
    expect((await api(gus.url, { token })).status).toBe(200);
    // Signing in again binds nothing more.
    expect((await login('gus-user', PASSWORD, { token })).status).toBe(200);
    expect((await api(`${base}auths/me`, { token })).body.bindings_count).toBe(1);

    const full = await shopper();
    for (let i = 0; i < 20; i++) expect((await api(`${base}carts`, { method: 'POST', token: full, body: {} })).status).toBe(201);
    const before = await api(`${base}auths?type=limited&limit=1`, { token: secret });
    expectError(await login('gus-user', PASSWORD, { token: full }), 422, 'binding_limit_exceeded');
    const after = await api(`${base}auths?type=limited&limit=1`, { token: secret });
    expect(after.body.total_items).toBe(before.body.total_items);
    expect((await api(`${base}auths/me`, { token: full })).body).toMatchObject({ bindings_count: 20, customer: null });
  });
});

describe('POST /carts/{id}/login and /logout', () => {
  it('links the customer with its details, binds it to the shopper, and unlinks it keeping the entered details', async () => {
    const hal = await customer('HAL', { tax_exempt: true, billing_address: { country: 'US', postal_code: '10001' }, phone: '555-0100' });
    const token = await shopper();
    const created = await api(`${base}carts`, {
      method: 'POST',
      token,
      body: { items: [{ product_id: 'ebook' }], customer: { name: 'Guest', email: 'guest@example.test', billing_address: { country: 'US', postal_code: '94107' } } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ subtotal: 19, tax: 1.9, total: 20.9 });
    const cartUrl: string = created.body.url;

    const wrong = await api(`${cartUrl}/login`, { method: 'POST', token, body: { username: 'hal-user', password: 'not it' } });
    expectError(wrong, 401, 'invalid_login');
    expect(wrong.body.error.message).toBe(INCORRECT);

    const signedIn = await api(`${cartUrl}/login`, { method: 'POST', token, body: { username: 'HAL-USER', password: PASSWORD } });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.customer).toMatchObject({
      customer_id: 'HAL',
      url: hal.url,
      username: 'HAL-user',
      name: 'Customer HAL',
      email: 'hal@example.test',
      phone: '555-0100',
      billing_address: { country: 'US', postal_code: '10001' },
      payment_methods: `${hal.url}/payment_methods`,
    });
    // The customer is tax exempt, so the totals follow.
    expect(signedIn.body).toMatchObject({ subtotal: 19, tax: 0, total: 19 });
    expect((await api(cartUrl, { token })).body.customer.customer_id).toBe('HAL');
    const own = await api(`${base}auths/me`, { token });
    expect(own.body.bindings).toEqual([cartUrl, hal.url]);
    expect(own.body).toMatchObject({ bindings_count: 2, customer: hal.url });
    expect((await api(`${base}customers/me`, { token })).body.customer_id).toBe('HAL');

    const signedOut = await api(`${cartUrl}/logout`, { method: 'POST', token });
    expect(signedOut.status, signedOut.text).toBe(200);
    expect(signedOut.body.customer).toMatchObject({ customer_id: null, url: null, username: null, payment_methods: null, name: 'Customer HAL', email: 'hal@example.test' });
    expect(signedOut.body).toMatchObject({ tax: 1.9, total: 20.9 });
    // Signing out twice changes nothing.
    expect((await api(`${cartUrl}/logout`, { method: 'POST', token })).body.customer.customer_id).toBeNull();

    // Signed in again, the shopper pays: the order belongs to the saved customer.
    expect((await api(`${cartUrl}/login`, { method: 'POST', token, body: { username: 'hal-user', password: PASSWORD } })).status).toBe(200);
    const paid = await api(`${cartUrl}/payments`, {
      method: 'POST',
      token,
      body: { payment_method: { type: 'credit_card', data: { number: '4444555566661111', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Hal' } } },
    });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body).toMatchObject({ total: 19 });
    const order = await api(paid.body.order, { token: secret });
    expect(order.body).toMatchObject({ customer: hal.url, tax: 0, total: 19 });
  });

  it('pays a cart with what signing in wrote, though the cart was made without an email a moment before', async () => {
    // The paying process keeps a copy of the cart it just made (no email: paying would refuse it);
    // signing in changed the cart since, so the payment starts over from the stored cart.
    await customer('JOY', { billing_address: { country: 'US', postal_code: '94107' } });
    const token = await shopper();
    const created = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], customer: { name: 'Anonymous', billing_address: { country: 'US', postal_code: '94107' } } } });
    expect(created.status, created.text).toBe(201);
    const card = { payment_method: { type: 'credit_card', data: { number: '4444555566661111', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Joy' } } };
    expect((await api(`${created.body.url}/login`, { method: 'POST', token, body: { username: 'joy-user', password: PASSWORD } })).status).toBe(200);
    const paid = await api(`${created.body.url}/payments`, { method: 'POST', token, body: card });
    expect(paid.status, paid.text).toBe(201);
    const order = await api(paid.body.order, { token: secret });
    expect(order.body).toMatchObject({ customer: `${base}customers/JOY`, total: 20.9 });

    // And a cart that really lacks the email is refused, copy or not, with nothing stored.
    const bare = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], customer: { name: 'Anonymous' } } });
    expectError(await api(`${bare.body.url}/payments`, { method: 'POST', token, body: card }), 400, 'invalid_input', { property: 'customer.email', reason: 'required' });
    expect(JSON.stringify((await api(`${base}payments?limit=100`, { token: secret })).body.data)).not.toContain(bare.body.cart_id);
  });

  it('answers 404 for a cart outside the shopper reach, and 422 once the cart is paid', async () => {
    await customer('IDA', { billing_address: { country: 'US', postal_code: '94107' } });
    const token = await shopper();
    const created = await api(`${base}carts`, { method: 'POST', token, body: { items: [{ product_id: 'ebook' }], customer: { name: 'Ida', email: 'ida@example.test', billing_address: { country: 'US', postal_code: '94107' } } } });
    const cartUrl: string = created.body.url;
    const stranger = await shopper();
    expectError(await api(`${cartUrl}/login`, { method: 'POST', token: stranger, body: { username: 'ida-user', password: PASSWORD } }), 404, 'resource_not_found');
    expectError(await api(`${cartUrl}/logout`, { method: 'POST', token: stranger }), 404, 'resource_not_found');
    // A secret token may sign a customer in on any cart, without a binding.
    expect((await api(`${cartUrl}/login`, { method: 'POST', token: secret, body: { username: 'ida-user', password: PASSWORD } })).body.customer.customer_id).toBe('IDA');
    expect((await api(`${cartUrl}/logout`, { method: 'POST', token: secret })).body.customer.customer_id).toBeNull();

    const paid = await api(`${cartUrl}/payments`, {
      method: 'POST',
      token,
      body: { payment_method: { type: 'credit_card', data: { number: '4444555566661111', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ida' } } },
    });
    expect(paid.status, paid.text).toBe(201);
    expectError(await api(`${cartUrl}/login`, { method: 'POST', token, body: { username: 'ida-user', password: PASSWORD } }), 422, 'invalid_state');
    expectError(await api(`${cartUrl}/logout`, { method: 'POST', token }), 422, 'invalid_state');
    // A paid cart counts no failure: five wrong passwords there do not lock the username.
    for (let i = 0; i < 5; i++) expectError(await api(`${cartUrl}/login`, { method: 'POST', token, body: { username: 'ida-user', password: 'wrong' } }), 422, 'invalid_state');
    expect((await login('ida-user', PASSWORD)).status).toBe(200);
  });
});
