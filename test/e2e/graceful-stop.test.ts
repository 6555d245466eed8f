/**
 * A stop signal to `npm start`'s whole process group finishes the payments in flight (issue 22
 * item 3; local-runtime.md: in-flight requests finish, for at most 10 s, then exit 0).
 *
 * `npm start` runs as the leader of its own process group (detached), as a terminal, systemd or
 * a container runtime runs it, and the test signals the whole group. Its `start` script `exec`s
 * the runtime, so npm's child is the runtime itself: npm forwards the signal to it (a copy of
 * the one the group already got), waits for it, and exits with its code. Twenty payments are
 * held inside the test gateway (CARTWHEEL_GATEWAY_HOLD_FILE, infra/local/gateway-hold.ts) until
 * the signal is taken, so every payment is surely in flight at the signal whatever the machine's
 * load; then the group gets the signal once more, a late relayed copy, which must not be taken as
 * "quit now" (the runtime says it took it as a copy). Then the hold is released and
 * every payment must be answered 201 with its order, the runtime must print "Cartwheel
 * stopped.", npm must exit 0, and after a restart no payment is `initiated`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, freePort, listAll, startRuntime, tempDataDir } from '../support/runtime-process';

const ROOT = resolve(import.meta.dirname, '../..');
const PAYMENTS = 20;
const limits = { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' };
const card = { payment_method: { type: 'credit_card', data: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvv: '123', cardholder_name: 'Ada Lee' } } };
const pause = (ms: number) => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/** Polls `check` until it answers true, or fails after `ms` with `what`. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await pause(20);
  }
}

/** `npm start` in its own process group (detached), as a terminal or systemd runs it. */
function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start'], { cwd: ROOT, detached: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  return { child, output: () => output, exited, gone: () => gone };
}

async function stopDuringPayments(signal: 'SIGTERM' | 'SIGINT') {
  const dataDir = tempDataDir();
  const holdFile = join(tempDataDir(), 'hold');
  const port = await freePort();
  const runtime = npmStart({ ...limits, PORT: String(port), CARTWHEEL_DATA_DIR: dataDir, CARTWHEEL_GATEWAY_HOLD_FILE: holdFile });
  try {
    await until('the listening line', () => {
      if (runtime.gone()) throw new Error(`The runtime exited while starting:\n${runtime.output()}`);
      return runtime.output().includes('Cartwheel listening on');
    });
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const base: string = bootstrap.api_url;
    const origin = `http://localhost:${port}`;
    const secret: string = bootstrap.tokens.test_secret;
    expect((await api(`${base}settings/payment`, { method: 'POST', token: secret, body: { duplicate_payment_timeout: 0 } })).status).toBe(200);
    const product = await api(`${base}products`, { method: 'POST', token: secret, body: { product_id: 'ebook', name: 'E-book', type: 'digital', prices: [{ currency: 'USD', price: 19 }] } });
    expect(product.status, product.text).toBe(201);

    // Twenty shoppers, each with a limited token and a cart.
    const shoppers = await Promise.all(
      Array.from({ length: PAYMENTS }, async (_, n) => {
        const minted = await api(`${base}auths/limited?account_id=${bootstrap.account_id}&test=true`, { method: 'POST', token: secret });
        expect(minted.status, minted.text).toBe(201);
        const customer = { name: `Shopper ${n}`, email: `shopper${n}@example.test`, billing_address: { country: 'US', postal_code: '94107' } };
        const cart = await api(`${base}carts`, { method: 'POST', token: minted.body.token, body: { items: [{ product_id: 'ebook', quantity: 1 }], customer } });
        expect(cart.status, cart.text).toBe(201);
        return { token: minted.body.token as string, cartId: cart.body.cart_id as string };
      }),
    );

    // Every authorization waits in the test gateway until the hold file goes.
    writeFileSync(holdFile, '');
    const answers = shoppers.map(({ token, cartId }) =>
      api(`${base}carts/${cartId}/payments`, { method: 'POST', token, body: card }).then(
        (reply) => ({ status: reply.status, body: reply.body, text: reply.text }),
        (error: Error) => ({ status: 0, body: undefined, text: `no answer: ${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}` }),
      ),
    );
    await until(`${PAYMENTS} payments held in the gateway`, async () => (await api(`${origin}/_local/gateway/held`)).body?.held === PAYMENTS);

    // The group's signal (npm relays it to the runtime too; copies that arrive together merge
    // into one delivery), then, once the runtime has taken it, the group's signal again, as a
    // parent's late relay (tsx's wrapper relayed after 30 ms without an acknowledgement).
    process.kill(-runtime.child.pid!, signal);
    await until('the runtime to take the signal', () => runtime.output().includes(`${signal} received: finishing in-flight work`));
    process.kill(-runtime.child.pid!, signal);
    await until('the runtime to take the copy', () => runtime.gone() || runtime.output().includes(`${signal} received again`));
    // It is still stopping with the payments held: they are in flight, and must now finish.
    expect(runtime.gone(), runtime.output()).toBe(false);
    rmSync(holdFile);

    const replies = await Promise.all(answers);
    const exit = await runtime.exited;
    const output = runtime.output();
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(output).toContain('Cartwheel stopped.');
    expect(output).not.toContain('quitting without finishing');
    // Every payment was read before the signal, so each is answered 201 (503 only for requests not yet read).
    expect(replies.map((reply) => `${reply.status} ${reply.status === 201 ? '' : reply.text}`.trim())).toEqual(Array(PAYMENTS).fill('201'));

    // After a restart: every payment completed, each with its order; none left initiated.
    const again = await startRuntime({ dataDir, env: { ...limits, PORT: String(port) } });
    try {
      const [payments, orders] = await Promise.all([listAll(`${base}payments?limit=100`, secret), listAll(`${base}orders?limit=100`, secret)]);
      expect(payments.filter((payment) => payment.status === 'initiated').map((payment) => payment.payment_id)).toEqual([]);
      expect(payments.filter((payment) => payment.status === 'completed')).toHaveLength(PAYMENTS);
      const paymentOfOrder = new Map(orders.map((order) => [order.payment_id ?? String(order.payment).split('/').pop(), order]));
      for (const reply of replies) expect(paymentOfOrder.has(reply.body.payment_id), `payment ${reply.body.payment_id} has no order`).toBe(true);
      expect(orders).toHaveLength(PAYMENTS);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  } finally {
    rmSync(holdFile, { force: true });
    if (!runtime.gone()) process.kill(-runtime.child.pid!, 'SIGKILL');
  }
}

describe('a stop signal to the process group during payments', () => {
  it('SIGTERM (systemd, containers): every payment answered 201 with its order, clean exit 0', () => stopDuringPayments('SIGTERM'), 180_000);
  it('SIGINT (Ctrl-C in a terminal): the same', () => stopDuringPayments('SIGINT'), 180_000);
});
