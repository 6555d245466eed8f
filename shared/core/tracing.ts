/**
 * Tracing (Powertools Tracer, AWS X-Ray) and the W3C trace context of the request being served.
 *
 * The Tracer is made only when `POWERTOOLS_TRACE_ENABLED` is `true` (the stack's `tracing`
 * context) and the process runs in Lambda; otherwise `traced(client)` hands the SDK client back
 * untouched and the Tracer's module is never imported. A stack without `tracing` leaves it out
 * of every bundle (an external module nothing reaches: infra/cloud/platform-function.ts), so the
 * default cold start pays nothing for it; bench/observability.ts measures what it adds when on,
 * which is why it is off by default.
 *
 * `traceparent`: the header an incoming request carried (W3C Trace Context), validated (version
 * 00, a trace id and a parent id not all zeros; anything else is ignored) and kept for the rest
 * of that request's async work (AsyncLocalStorage, set by shared/http/middleware/respond.ts).
 * Due work written during the request stores it (shared/work/due-work-store.ts), the events and
 * license requests that work creates keep it, and every attempt to deliver them, whenever and
 * wherever it runs (the request, the queue's worker, the sweep, a retry), sends a `traceparent`
 * with the same trace id and a fresh parent id (`childTraceparent`). Only a validated header is
 * ever stored or sent on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

type Tracer = { captureAWSv3Client<T>(client: T): T };

/** Tracing is on: the stack set it (context `tracing`) and this is Lambda. */
const enabled = process.env.POWERTOOLS_TRACE_ENABLED === 'true' && Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

// Imported only when on (the X-Ray SDK is what costs the cold start). The specifier stays a
// literal: esbuild bundles it for a stack with tracing on, and leaves it external otherwise.
const tracer: Tracer | null = enabled
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cartwheel' })
  : null;

/** The process's Tracer, or null when tracing is off (the default) or outside Lambda. */
function tracerOf(): Tracer | null {
  return tracer;
}

/** An SDK v3 client with its calls traced as X-Ray subsegments when tracing is on; the client itself otherwise. */
export function traced<T>(client: T): T {
  return tracerOf()?.captureAWSv3Client(client) ?? client;
}

/**
 * A W3C `traceparent` (Trace Context level 1): version 00, a 32-hex trace id and a 16-hex parent
 * id (lowercase, neither all zeros), 2-hex flags.
 */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-([0-9a-f]{2})$/;

/**
 * The header as sent on and stored when it is a valid `traceparent`, else undefined (an invalid
 * header is ignored: nothing is stored or sent on for it).
 *
 * @example validTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // the same
 */
export function validTraceparent(header: string | null | undefined): string | undefined {
  const value = header?.trim();
  return value && TRACEPARENT.test(value) ? value : undefined;
}

/** A parent id of 16 hex digits, never all zeros. */
function freshParentId(): string {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (id !== '0000000000000000') return id;
  }
}

/**
 * The `traceparent` of one outbound attempt caused by a request that carried `stored`: the same
 * trace id and flags, a fresh parent id (each attempt is its own span of the caller's trace).
 * Undefined when nothing valid was stored.
 *
 * @example childTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // '00-4bf92f…4736-<16 new hex>-01'
 */
export function childTraceparent(stored: string | null | undefined): string | undefined {
  const match = stored ? TRACEPARENT.exec(stored) : null;
  return match ? `00-${match[1]}-${freshParentId()}-${match[2]}` : undefined;
}

const context = new AsyncLocalStorage<{ traceparent: string }>();

/** Keeps the request's `traceparent` (when it carried a valid one) for the rest of its async work. */
export function enterTraceContext(header: string | undefined): void {
  const value = validTraceparent(header);
  if (value) context.enterWith({ traceparent: value });
  else if (context.getStore()) context.enterWith({ traceparent: '' });
}

/** The validated `traceparent` the request being served carried, if any (what due work it causes stores). */
export function currentTraceparent(): string | undefined {
  return context.getStore()?.traceparent || undefined;
}
