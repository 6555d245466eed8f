/**
 * The W3C trace context helpers (shared/core/tracing.ts): which `traceparent` headers are kept,
 * what each outbound attempt sends, and what due work written during a request stores.
 */
import { describe, expect, it } from 'vitest';
import { childTraceparent, currentTraceparent, enterTraceContext, validTraceparent } from '../../shared/core/tracing';
import { dueEntry } from '../../shared/work/due-work-store';
import { configureStore } from '../../shared/store/client';

// Entries are only built here, never written: no table is reached.
configureStore({ tableName: 'cartwheel', region: 'us-east-1', endpoints: { dynamodb: 'http://127.0.0.1:1' } });

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const VALID = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('validTraceparent', () => {
  it('keeps a version 00 header (around spaces trimmed)', () => {
    expect(validTraceparent(VALID)).toBe(VALID);
    expect(validTraceparent(` ${VALID} `)).toBe(VALID);
    expect(validTraceparent(`00-${TRACE_ID}-00f067aa0ba902b7-00`)).toBe(`00-${TRACE_ID}-00f067aa0ba902b7-00`);
  });

  it.each([
    ['another version', `01-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['version ff', `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['uppercase hex', VALID.toUpperCase()],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`],
    ['a long parent id', `00-${TRACE_ID}-00f067aa0ba902b7a-01`],
    ['one-digit flags', `00-${TRACE_ID}-00f067aa0ba902b7-1`],
    ['a trailing part', `${VALID}-00`],
    ['a non-hex digit', `00-${TRACE_ID.slice(0, 31)}g-00f067aa0ba902b7-01`],
    ['nothing', ''],
    ['a header injection', `${VALID}\r\nX-Evil: 1`],
  ])('ignores %s', (_name, header) => {
    expect(validTraceparent(header)).toBeUndefined();
  });

  it('ignores a missing header', () => {
    expect(validTraceparent(undefined)).toBeUndefined();
    expect(validTraceparent(null)).toBeUndefined();
  });
});

describe('childTraceparent', () => {
  it('keeps the trace id and flags and makes a fresh parent id each time', () => {
    const children = Array.from({ length: 20 }, () => childTraceparent(VALID)!);
    for (const child of children) {
      expect(child).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      expect(validTraceparent(child)).toBe(child);
      expect(child).not.toBe(VALID);
    }
    expect(new Set(children).size).toBe(20);
  });

  it('answers nothing for nothing stored, or something invalid', () => {
    expect(childTraceparent(undefined)).toBeUndefined();
    expect(childTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeUndefined();
  });
});

describe('the request trace context', () => {
  const stored = (kind: 'event-fanout' | 'license-open') => dueEntry(kind, { accountId: 'a1', mode: 'test' }, 'ref-1', 0, 0).item.Put?.Item?.traceparent;

  it('is what due work written during the request stores', async () => {
    await (async () => {
      enterTraceContext(VALID);
      await Promise.resolve();
      expect(currentTraceparent()).toBe(VALID);
      expect(stored('event-fanout')).toBe(VALID);
    })();
  });

  it('stores nothing for an invalid header, and a later invalid header clears an earlier one', async () => {
    await (async () => {
      enterTraceContext('not-a-traceparent');
      expect(currentTraceparent()).toBeUndefined();
      expect(stored('license-open')).toBeUndefined();
      enterTraceContext(VALID);
      enterTraceContext(`00-${TRACE_ID}-${'0'.repeat(16)}-01`);
      expect(currentTraceparent()).toBeUndefined();
      expect(stored('license-open')).toBeUndefined();
    })();
  });
});
