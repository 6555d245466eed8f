/**
 * Bodies that may be JSON or a form (`POST /oauth/token`, auth.md §6.3: an exception to the
 * JSON-only rule): the `Content-Type` picks the parser, and either gives the same plain object.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidSyntaxError } from '../errors';
import { rawBody } from '../request';
import { FORM_TYPE, isFormContentType, parseFormBytes } from './form';
import { isJsonContentType, parseJsonBytes } from './json';

/** What the error of another type names as expected. */
const EXPECTED = `application/json or ${FORM_TYPE}`;

/**
 * Parses a JSON or form body by its `Content-Type` (each with its own rules, ./json and ./form);
 * any other type is 400 invalid_syntax naming both. Returns undefined for a bodiless request.
 */
export function parseFormOrJsonBody(event: APIGatewayProxyEventV2): Record<string, unknown> | undefined {
  const bytes = rawBody(event);
  if (!bytes || bytes.length === 0) return undefined;
  const contentType = event.headers?.['content-type'];
  if (isJsonContentType(contentType)) return parseJsonBytes(bytes);
  if (isFormContentType(contentType)) return parseFormBytes(bytes);
  throw new InvalidSyntaxError(`A request body must be sent with Content-Type: application/json or ${FORM_TYPE}.`, { header: 'Content-Type', expected: EXPECTED });
}
