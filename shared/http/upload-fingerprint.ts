/**
 * What identifies a `multipart/form-data` upload for `Idempotency-Key` comparison
 * (conventions.md §19), kept apart from the parser (./body/multipart) so every bundle's pipeline
 * can compute it without carrying busboy.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mediaType } from './body/content-type';
import { rawBody } from './request';

/**
 * What identifies an upload for `Idempotency-Key` comparison: the body's digest with the
 * multipart boundary taken out (a client retrying picks a new random boundary, and that alone
 * must not make the same upload a different request). Undefined for other bodies.
 */
export function uploadFingerprint(event: APIGatewayProxyEventV2): { multipart_sha256: string } | undefined {
  const contentType = event.headers?.['content-type'];
  if (mediaType(contentType) !== 'multipart/form-data') return undefined;
  const body = rawBody(event);
  if (!body?.length) return undefined;
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType!);
  const marker = boundary ? Buffer.from(boundary[1] ?? boundary[2]!) : undefined;
  const hash = createHash('sha256');
  let start = 0;
  if (marker) {
    for (let at = body.indexOf(marker); at !== -1; at = body.indexOf(marker, start)) {
      hash.update(body.subarray(start, at)).update('\u0000boundary\u0000');
      start = at + marker.length;
    }
  }
  hash.update(body.subarray(start));
  return { multipart_sha256: hash.digest('hex') };
}
