/**
 * Timestamps in API output and input. Output is ISO 8601 with second precision; this first
 * version writes UTC (`Z`). Zone-aware output and the shorthand table come with the REST
 * conventions engine.
 */
import { InvalidInputError } from '../http/errors';

/** An epoch-ms instant as `2026-11-21T14:05:09Z`, or null. */
export function timestamp(epochMs: number | undefined | null): string | null {
  if (epochMs === undefined || epochMs === null) return null;
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * Parses an ISO 8601 timestamp with an explicit offset (`Z` or `±hh[:mm]`) from a body
 * property; anything else is 400 invalid_input naming the property.
 */
export function parseTimestampInput(value: unknown, property: string): number {
  if (typeof value === 'string' && ISO_TIMESTAMP.test(value)) {
    const normalized = value.replace(/([+-]\d{2})$/, '$1:00').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
    const ms = Date.parse(normalized);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new InvalidInputError(`The property ${property} must be an ISO 8601 timestamp with an offset.`, {
    property,
    reason: 'invalid',
  });
}
