/**
 * Raw request bodies: the bytes exactly as sent and their declared type, for a route that must
 * see them untouched (a webhook whose signature covers the body bytes). Any type is accepted.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bodyTooLarge, MAX_BODY_BYTES } from '../body-limits';
import { rawBody } from '../request';

/** A body as sent. */
export interface RawBody {
  bytes: Buffer;
  /** The `Content-Type` header as sent, if any. */
  contentType: string | undefined;
}

/** The body's bytes (at most 1 MiB, else 422 account_limit_exceeded) and type; undefined for a bodiless request. */
export function parseRawBody(event: APIGatewayProxyEventV2): RawBody | undefined {
  const bytes = rawBody(event);
  if (!bytes || bytes.length === 0) return undefined;
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
  return { bytes, contentType: event.headers?.['content-type'] };
}

/** What identifies a raw body for `Idempotency-Key` comparison (conventions.md §19): its type and its bytes' digest. */
export function rawFingerprint(body: RawBody | undefined): { content_type: string | null; raw_sha256: string } | undefined {
  if (!body) return undefined;
  return { content_type: body.contentType ?? null, raw_sha256: createHash('sha256').update(body.bytes).digest('hex') };
}
