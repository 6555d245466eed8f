/** The signal rule: copies of the first signal are one request to stop; a later signal quits at once. */
import { describe, expect, it } from 'vitest';
import { DUPLICATE_WINDOW_MS, stopSignals } from '../../infra/local/stop-signals';

describe('stop signals', () => {
  it('takes the first signal as a request to stop', () => {
    expect(stopSignals()(1000)).toBe('stop');
  });

  it('takes signals within the window of the first as copies of it (group signal, npm and tsx relays)', () => {
    const verdict = stopSignals();
    expect(verdict(1000)).toBe('stop');
    expect(verdict(1030)).toBe('duplicate');
    expect(verdict(1060)).toBe('duplicate');
    expect(verdict(1000 + DUPLICATE_WINDOW_MS - 1)).toBe('duplicate');
  });

  it('takes a signal after the window as a second request, to quit at once', () => {
    const verdict = stopSignals();
    verdict(1000);
    verdict(1010);
    expect(verdict(1000 + DUPLICATE_WINDOW_MS)).toBe('force');
  });

  it('measures the window from the first signal, so a stream of copies cannot postpone a quit forever', () => {
    const verdict = stopSignals(100);
    expect(verdict(0)).toBe('stop');
    expect(verdict(90)).toBe('duplicate');
    expect(verdict(150)).toBe('force');
  });
});
