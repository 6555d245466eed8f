/**
 * A local runtime whose Stripe adapter points at the Stripe stand-in
 * (infra/local/stripe-standin/, `CARTWHEEL_STRIPE_API_BASE`), on the manual clock, with a live
 * Stripe connection and its webhook endpoint registered in the stand-in: what the Stripe e2e
 * tests share.
 */
import Stripe from 'stripe';
import { expect } from 'vitest';
import { startStripeStandin, signature, type StripeStandin } from '../../infra/local/stripe-standin/server';
import { api, startRuntime, type RuntimeProcess } from './runtime-process';

/** A runtime connected to a stand-in Stripe account in live mode. */
export interface StripeRuntime {
  standin: StripeStandin;
  runtime: RuntimeProcess;
  base: string;
  account: string;
  live: string;
  test: string;
  webhookSecret: string;
  /** Sends a webhook payload to the runtime, signed with the live webhook secret. */
  sendWebhook(payload: string): ReturnType<typeof api>;
  /** Moves the manual clock forward. */
  advance(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

/** The stand-in's secret key of the live connection. */
export const STANDIN_SECRET_KEY = 'sk_live_standinAcct1';

/** Starts the stand-in and a runtime connected to it in live mode (`settings`: more of /settings/payment). */
export async function startStripeRuntime(settings: Record<string, unknown> = {}): Promise<StripeRuntime> {
  const standin = await startStripeStandin();
  const runtime = await startRuntime({ env: { CARTWHEEL_CLOCK: 'manual', CARTWHEEL_STRIPE_API_BASE: standin.url, CARTWHEEL_STRIPE_TIMEOUT_MS: '2000', CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000' } });
  const base = runtime.bootstrap.api_url;
  const account = runtime.bootstrap.account_id;
  const live = runtime.bootstrap.tokens.live_secret;
  const stripe = new Stripe(STANDIN_SECRET_KEY, { host: '127.0.0.1', port: standin.port, protocol: 'http' });
  const endpoint = await stripe.webhookEndpoints.create({ url: `${base}gateway_events/stripe/${account}/live`, enabled_events: ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'charge.refunded', 'refund.updated'] });
  const webhookSecret = endpoint.secret!;
  const saved = await api(`${base}settings/payment`, { method: 'POST', token: live, body: { duplicate_payment_timeout: 0, ...settings, stripe_live: { publishable_key: 'pk_live_standinAcct1', secret_key: STANDIN_SECRET_KEY, webhook_secret: webhookSecret } } });
  expect(saved.status, saved.text).toBe(200);
  return {
    standin,
    runtime,
    base,
    account,
    live,
    test: runtime.bootstrap.tokens.test_secret,
    webhookSecret,
    sendWebhook: (payload) => api(`${base}gateway_events/stripe/${account}/live`, { method: 'POST', rawBody: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(payload, webhookSecret) } }),
    async advance(seconds) {
      const moved = await api(`${runtime.url}/_local/clock`, { method: 'POST', body: { advance_seconds: seconds } });
      expect(moved.status, moved.text).toBe(200);
    },
    async stop() {
      expect(await runtime.stop()).toBe(0);
      await standin.close();
    },
  };
}

/** Waits until `check` holds (polling), failing with `what` after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T>, check: (value: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The shopper's 3-D Secure step at the stand-in; answers the webhook payload it made (not delivered when `deliver` is false). */
export async function authenticate(standin: StripeStandin, intentId: string, outcome: 'succeeded' | 'failed', deliver: boolean): Promise<string> {
  const done = await fetch(`${standin.url}/_standin/payment_intents/${intentId}/authenticate`, { method: 'POST', body: JSON.stringify({ outcome, deliver }) });
  expect(done.status).toBe(200);
  return ((await done.json()) as { payload: string }).payload;
}
