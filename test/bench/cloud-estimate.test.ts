/**
 * The checkout bench's on-paper cloud estimate: a round costs its slowest call, rounds add up,
 * and counts without rounds fall back to the operation mix.
 */
import { describe, expect, it } from 'vitest';
import { assumptions, callMs, estimateFromMix, estimateFromRounds, OTHER_CALL_MS, REQUEST_OVERHEAD_MS } from '../../bench/cloud-estimate';

describe('estimateFromRounds', () => {
  it('adds the request overhead and, per round, its slowest call', () => {
    expect(estimateFromRounds([])).toBe(REQUEST_OVERHEAD_MS);
    expect(estimateFromRounds([['GetItem'], ['GetItem', 'TransactWriteItems'], ['BatchGetItem']])).toBe(
      REQUEST_OVERHEAD_MS + callMs('GetItem') + callMs('TransactWriteItems') + callMs('BatchGetItem'),
    );
    // Calls sent together cost one call's time, not their sum.
    expect(estimateFromRounds([['GetItem', 'GetItem', 'Query']])).toBe(REQUEST_OVERHEAD_MS + callMs('GetItem'));
    expect(callMs('SomethingNew')).toBe(OTHER_CALL_MS);
  });
});

describe('estimateFromMix', () => {
  it('takes each round at the mean call of the operation mix', () => {
    const mix = { GetItem: 3, TransactWriteItems: 1 };
    const mean = (3 * callMs('GetItem') + callMs('TransactWriteItems')) / 4;
    expect(estimateFromMix(3, mix)).toBeCloseTo(REQUEST_OVERHEAD_MS + 3 * mean);
    expect(estimateFromMix(0, {})).toBe(REQUEST_OVERHEAD_MS);
  });

  it('states its assumptions', () => {
    expect(assumptions()).toContain(`TransactWriteItems ${callMs('TransactWriteItems')} ms`);
    expect(assumptions()).toContain(`${REQUEST_OVERHEAD_MS} ms per request`);
  });
});
