/**
 * Tracing (Powertools Tracer, AWS X-Ray) and the W3C trace context of the request being served.
 *
 * The Tracer is made only when `POWERTOOLS_TRACE_ENABLED` is `true` (the stack's `tracing`
 * context) and the process runs in Lambda; otherwise `traced(client)` hands the SDK client back
 * untouched and nothing of the X-Ray SDK is loaded. bench/observability.ts measures what it adds
 * to a cold start, which is why it is off by default.
 *
 * `traceparent`: the header an incoming request carried (W3C Trace Context), kept for the rest
 * of that request's async work (AsyncLocalStorage, set by shared/http/middleware/respond.ts) and
 * added to the webhooks and license requests the request itself sends (the outbound HTTP
 * adapter). Work that a queue or the sweep runs later is not part of the request's trace.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Tracer = { captureAWSv3Client<T>(client: T): T };

/** Tracing is on: the stack set it (context `tracing`) and this is Lambda. */
const enabled = process.env.POWERTOOLS_TRACE_ENABLED === 'true' && Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);

// Loaded only when on (the X-Ray SDK is what costs the cold start); the bundle keeps it lazy.
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

/** A W3C `traceparent` value: version, 32-hex trace id, 16-hex parent id, flags (not all zeros). */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

const context = new AsyncLocalStorage<{ traceparent: string }>();

/** Keeps the request's `traceparent` (when it carried a valid one) for the rest of its async work. */
export function enterTraceContext(header: string | undefined): void {
  const value = header?.trim().toLowerCase();
  if (value && TRACEPARENT.test(value)) context.enterWith({ traceparent: value });
  else if (context.getStore()) context.enterWith({ traceparent: '' });
}

/** The `traceparent` to send on with an outbound request, if the request being served carried one. */
export function currentTraceparent(): string | undefined {
  return context.getStore()?.traceparent || undefined;
}
