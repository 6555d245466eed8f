/**
 * A `Platform` of fakes for tests: email and queues kept in memory (with the outbox's
 * de-duplication rule), objects in a Map, the system clock (or a test's `ManualClock`), the
 * built-in test gateway on that clock, a real local-key sealer on a temporary key file, and
 * outbound HTTP that answers what the test says. Override any port with `testPlatform({ ... })`.
 */
// The app's resource registry, which rendering reads (the app's families, workers and jobs load it too).
import '../../shared/app/resources';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localSecrets } from '../../infra/local/local-secrets';
import { systemClock } from '../../shared/platform/adapters/system-clock';
import { config, siteOf } from '../../shared/core/config';
import { testGateway } from '../../shared/modules/payments/test-gateway';
import { stripeGateways } from '../../shared/platform/adapters/stripe-gateway';
import { destinationAllowed } from '../../shared/platform/adapters/outbound-http';
import type { EmailMessage, OutboundRequest, OutboundResponse, Platform } from '../../shared/platform/ports';

/** What the fakes recorded. */
export interface TestPlatform extends Platform {
  sent: Array<EmailMessage & { messageId: string }>;
  queued: Array<{ queue: string; body: string; delaySeconds?: number }>;
  requests: OutboundRequest[];
  stored: Map<string, Buffer>;
}

let keyFile: string | undefined;

/** A platform of fakes; `overrides` replace ports. */
export function testPlatform(overrides: Partial<Platform> & { answer?: (request: OutboundRequest) => OutboundResponse } = {}): TestPlatform {
  keyFile ??= join(mkdtempSync(join(tmpdir(), 'cartwheel-test-key-')), 'local.key');
  const sent: TestPlatform['sent'] = [];
  const byKey = new Map<string, string>();
  const queued: TestPlatform['queued'] = [];
  const requests: OutboundRequest[] = [];
  const stored = new Map<string, Buffer>();
  let counter = 0;
  const { answer, ...ports } = overrides;
  const clock = ports.clock ?? systemClock;
  return {
    sent,
    queued,
    requests,
    stored,
    clock,
    // The addresses of this process's configuration (a test may set CARTWHEEL_* and resetConfig() first), or the test's own.
    site: siteOf(config()),
    email: {
      send(message) {
        const known = message.dedupKey ? byKey.get(message.dedupKey) : undefined;
        if (known) return Promise.resolve(known);
        const messageId = `test-message-${++counter}`;
        if (message.dedupKey) byKey.set(message.dedupKey, messageId);
        sent.push({ ...message, messageId });
        return Promise.resolve(messageId);
      },
    },
    secrets: localSecrets(keyFile),
    gateway: testGateway(clock),
    // Nothing listens here unless a test starts a Stripe stand-in and overrides `stripe`.
    stripe: stripeGateways({ apiBase: 'http://127.0.0.1:9' }),
    http: {
      send(request) {
        requests.push(request);
        return Promise.resolve(answer ? answer(request) : { ok: true, status: 200, headers: {}, body: '' });
      },
      // The local policy, with a resolver that knows no names (tests need no network).
      allowsDestination: (url) => destinationAllowed(url, { allowLoopback: true }, () => Promise.resolve([])),
    },
    queues: {
      send(queue, body, options) {
        queued.push({ queue, body, ...(options?.delaySeconds ? { delaySeconds: options.delaySeconds } : {}) });
        return Promise.resolve();
      },
      sendBatch(queue, bodies) {
        for (const body of bodies) queued.push({ queue, body });
        return Promise.resolve([]);
      },
    },
    objects: {
      put(bucket, key, body) {
        stored.set(`${bucket}/${key}`, body);
        return Promise.resolve();
      },
      get(bucket, key) {
        return Promise.resolve(stored.get(`${bucket}/${key}`));
      },
      delete(bucket, key) {
        stored.delete(`${bucket}/${key}`);
        return Promise.resolve();
      },
    },
    ...ports,
  };
}

/**
 * Runs the queue messages `platform` recorded since `from` for `queue` through `consumer` (an
 * SQS worker, such as handlers/queues/event-notifications.ts's), as the poller would; answers
 * the index to continue from.
 */
export async function runQueued(
  platform: TestPlatform,
  queue: string,
  consumer: (event: { Records: Array<{ messageId: string; body: string }> }) => Promise<unknown>,
  from = 0,
): Promise<number> {
  const end = platform.queued.length;
  const records = platform.queued.slice(from, end).flatMap((message, index) => (message.queue === queue ? [{ messageId: `test-${from + index}`, body: message.body }] : []));
  if (records.length) await consumer({ Records: records });
  return end;
}
