/**
 * The local-only pages under `/_local/` (local-runtime.md): outbox, health and the manual
 * clock. Served only to loopback clients; never part of the cloud deployment.
 */
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '../../shared/core/html';
import { ApiError } from '../../shared/http/errors';
import { errorResult, toResponse } from '../../shared/http/response';
import { isLoopback } from '../../shared/http/transport';
import { newId } from '../../shared/core/ids';
import { listCharges, type GatewayChargeRecord } from '../../shared/modules/payments';
import { writeResult } from './api-event';
import { heldChargedCharges, heldCharges, heldRefunds } from './gateway-hold';
import { ManualClock } from './manual-clock';
import { listOutboxSummaries, readOutboxBody, type OutboxBodies } from './outbox';
import { outboxPage, previewOf } from './outbox-page';
import type { ReadCacheStats } from './dynamo/read-cache';
import type { Clock } from '../../shared/platform/ports';

/** What the local pages need from the runtime. */
export interface LocalPagesOptions {
  outboxDir: string;
  /** The platform's clock: `/_local/clock` shows it, and moves it when it is a `ManualClock`. */
  clock: Clock;
  isReady: () => boolean;
  /** DynamoDB calls received by the emulator so far, by operation (benchmarks read this). */
  dynamoCalls: () => Record<string, number>;
  /**
   * What the local DynamoDB holds in memory by design: the read cache (bounded by size) and the
   * committed transactions' tokens (bounded by DynamoDB's 10-minute idempotency window).
   */
  storeMemory: () => { readCache: ReadCacheStats; transactionTokens: number };
}

let collectGarbage: (() => void) | undefined;
/** A full, synchronous garbage collection (V8's `gc`, enabled here on first use; local pages only). */
function fullGc(): void {
  if (!collectGarbage) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** An error of a local page, in the API's error envelope (with `X-Request-Id` = `reference`). */
function localError(res: ServerResponse, status: number, code: string, message: string): void {
  const requestId = newId();
  writeResult(res, toResponse(errorResult(new ApiError(status, code, message), requestId), requestId, undefined, undefined));
}

/** A ledger entry of the built-in test gateway as the local page shows it. */
function describeCharge(charge: GatewayChargeRecord): Record<string, unknown> {
  const [accountId, mode, paymentId] = charge.key.split('#');
  if (charge.state === 'refunded') {
    // A refund of the charge keyed `charge_key`: its own key ends with the refund id.
    return {
      kind: 'refund',
      account_id: accountId,
      mode,
      payment_id: charge.charge_key?.split('#')[2] ?? null,
      refund_id: paymentId,
      outcome: charge.refund?.outcome,
      amount: charge.amount,
      currency: charge.currency,
      date: new Date(charge.created_ms).toISOString(),
    };
  }
  return {
    kind: 'charge',
    account_id: accountId,
    mode,
    payment_id: paymentId,
    outcome: charge.state === 'voided' ? 'voided' : charge.result?.outcome,
    amount: charge.amount,
    currency: charge.currency,
    date: new Date(charge.created_ms).toISOString(),
  };
}

/** Handles a `/_local/...` request. */
export async function handleLocalPage(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  sourceIp: string,
  options: LocalPagesOptions,
): Promise<void> {
  if (!isLoopback(sourceIp)) return localError(res, 404, 'resource_not_found', 'Local pages are only served to loopback clients.');
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const base = `http://${req.headers.host ?? 'localhost'}`;

  if (path === '/_local/health' && method === 'GET') {
    return options.isReady() ? json(res, 200, { status: 'ok' }) : json(res, 503, { status: 'starting' });
  }
  if (path === '/_local/metrics' && method === 'GET') {
    const calls = options.dynamoCalls();
    // `?gc=1`: a full garbage collection first, so heapUsed is the live heap (what a leak grows).
    if (url.searchParams.get('gc') === '1') fullGc();
    const store = options.storeMemory();
    return json(res, 200, {
      dynamodb_calls: calls,
      dynamodb_calls_total: Object.values(calls).reduce((a, b) => a + b, 0),
      // The runtime's own memory (bytes): rss against heapUsed/external tells native growth from JS growth.
      memory: process.memoryUsage(),
      // The most V8 lets the heap grow to (`--max-old-space-size` plus the young generation).
      heap_size_limit: getHeapStatistics().heap_size_limit,
      // Where V8's heap memory is: committed (size) against live (used) per space, in bytes. RSS
      // above heapTotal is V8 sizing its spaces to the allocation rate, not data kept.
      heap_spaces: Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size, physical: space.physical_space_size }]),
      ),
      read_cache: store.readCache,
      transaction_tokens: store.transactionTokens,
    });
  }
  if (path === '/_local/gateway/charges' && method === 'GET') {
    if (!options.isReady()) return localError(res, 503, 'starting', 'The runtime is still starting.');
    return json(res, 200, { data: (await listCharges()).map(describeCharge) });
  }
  if (path === '/_local/gateway/held' && method === 'GET') {
    return json(res, 200, { held: heldCharges(), held_charged: heldChargedCharges(), held_refunds: heldRefunds() });
  }
  if (path === '/_local/clock') {
    if (method === 'GET') return json(res, 200, { now: isoSeconds(new Date(options.clock.nowMs())), mode: options.clock instanceof ManualClock ? 'manual' : 'system' });
    if (method === 'POST') return moveClock(res, body, options.clock);
  }
  if (path === '/_local/outbox' && method === 'GET') {
    const summaries = await listOutboxSummaries(options.outboxDir);
    const links = (id: string) => ({
      text_url: `${base}/_local/outbox/${id}.txt`,
      html_url: `${base}/_local/outbox/${id}.html`,
      eml_url: `${base}/_local/outbox/${id}.eml`,
    });
    if ((req.headers.accept ?? '').includes('text/html')) {
      const entries = summaries.map(({ entry, text, hasHtml }) => {
        const urls = links(entry.message_id);
        // A message without an HTML body is shown as its text.
        return { ...entry, ...urls, html_url: hasHtml ? urls.html_url : urls.text_url, preview: previewOf(text) };
      });
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(outboxPage(entries, url.searchParams.get('message') ?? undefined));
    }
    const data = summaries.map(({ entry }) => {
      const { text_url, html_url } = links(entry.message_id);
      return { ...entry, text_url, html_url };
    });
    return json(res, 200, { data });
  }
  const message = /^\/_local\/outbox\/([0-9A-Z-]+)\.(html|txt|eml)$/.exec(path);
  if (message && method === 'GET') {
    const [, id, extension] = message;
    const body = await readOutboxBody(options.outboxDir, id!, extension as keyof OutboxBodies);
    if (body === undefined) return localError(res, 404, 'resource_not_found', 'No such message in the outbox.');
    const content = Buffer.from(body, 'utf8');
    const type = extension === 'html' ? 'text/html; charset=utf-8' : extension === 'txt' ? 'text/plain; charset=utf-8' : 'message/rfc822';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': content.length });
    return void res.end(content);
  }
  return localError(res, 404, 'resource_not_found', 'No such local page.');
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function moveClock(res: ServerResponse, body: Buffer, clock: Clock): void {
  if (!(clock instanceof ManualClock)) {
    return localError(res, 409, 'invalid_state', 'The clock is in system mode; start with CARTWHEEL_CLOCK=manual to control it.');
  }
  let input: unknown;
  try {
    input = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    return localError(res, 400, 'invalid_syntax', 'The request body is not valid JSON.');
  }
  const { advance_seconds: advance, set } = (input ?? {}) as { advance_seconds?: unknown; set?: unknown };
  let target: number;
  if (typeof advance === 'number' && Number.isFinite(advance) && advance >= 0 && set === undefined) {
    target = clock.nowMs() + advance * 1000;
  } else if (typeof set === 'string' && advance === undefined && !Number.isNaN(Date.parse(set))) {
    target = Date.parse(set);
    if (target < clock.nowMs()) return localError(res, 400, 'invalid_input', 'The clock cannot move backwards.');
  } else {
    return localError(res, 400, 'invalid_input', 'Send {"advance_seconds": N} with N >= 0, or {"set": "<ISO timestamp>"}.');
  }
  json(res, 200, { now: isoSeconds(new Date(clock.set(target))), mode: 'manual' });
}
