/**
 * What a request carries besides its body's meaning (conventions.md §4): query strings, boolean
 * parameters and the body's bytes. The body parsers are in ./body/, one per kind.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidInputError } from './errors';

/** Parses a raw query string; a repeated parameter keeps its last value. */
export function parseQuery(raw: string | undefined): Record<string, string> {
  const query: Record<string, string> = {};
  if (!raw) return query;
  for (const [name, value] of new URLSearchParams(raw)) query[name] = value;
  return query;
}

/** The raw body bytes of an event (API Gateway may base64-encode them). */
export function rawBody(event: APIGatewayProxyEventV2): Buffer | undefined {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * Reads a boolean query parameter: `true`, `false`, `1`, `0` (any case); empty counts as
 * absent; anything else is 400 invalid_input naming the parameter.
 */
export function booleanParameter(query: Record<string, string>, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const value = raw.toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new InvalidInputError(`The parameter ${name} must be true or false.`, { parameter: name, reason: 'invalid' });
}
