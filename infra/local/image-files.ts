/**
 * The local counterpart of the CloudFront `images/*` behaviour (infra/cloud/hosting.ts): the
 * files of product images (commerce.md §2.2) from the apps bucket, through the Platform's
 * objects port, with no token. Paths carry a content hash, so answers are cached for a year
 * as immutable. Only paths of the shape the image code writes are looked up; anything else
 * (`..`, encoded characters, other names) is a 404 before storage is asked.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError } from './edge-answers';
import { MethodNotAllowedError, NotFoundError } from '../../shared/http/errors';
import type { ObjectStorage } from '../../shared/platform/ports';
import { surfaceNamed } from '../../shared/app/surfaces';

/** The path prefix the image files are served under (and their key prefix in the apps bucket). */
export const IMAGE_FILES_PREFIX = surfaceNamed('images').pathPrefix;

/** `images/<sha256>/<image_id>/<size>.<ext>`, exactly (shared/modules/images/images.ts). */
const IMAGE_FILE_PATH = /^\/images\/[0-9a-f]{64}\/[0-9A-Za-z]{1,64}\/(?:original|small|medium|large|square)\.(jpg|png|gif|webp)$/;

const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };

/** What the public CDN answers for image files: a year, never revalidated (the path changes with the content). */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Answers a request under `/images/` (GET or HEAD) from the apps bucket. */
export async function serveImageFile(req: IncomingMessage, res: ServerResponse, path: string, objects: ObjectStorage): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return answerError(req, res, new MethodNotAllowedError(method, ['GET', 'HEAD']), false);
  const shape = IMAGE_FILE_PATH.exec(path);
  const missing = new NotFoundError('No such image file.');
  if (!shape) return answerError(req, res, missing, false);
  const body = await objects.get('apps', path.slice(1));
  if (!body) return answerError(req, res, missing, false);
  const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
  const headers = {
    'Content-Type': CONTENT_TYPES[shape[1]!]!,
    'Cache-Control': IMAGE_CACHE_CONTROL,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    'Access-Control-Allow-Origin': '*',
  };
  if (req.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    res.writeHead(304, headers);
    return void res.end();
  }
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(method === 'HEAD' ? undefined : body);
}
