import { describe, expect, it } from 'vitest';
import { retryOnConflict, VersionConflictError } from '../../shared/store/records';

describe('retryOnConflict', () => {
  it('runs the read-modify-write again after a lost race', async () => {
    let calls = 0;
    const result = await retryOnConflict(async () => {
      calls++;
      if (calls < 3) throw new VersionConflictError('lost');
      return 'saved';
    });
    expect(result).toBe('saved');
    expect(calls).toBe(3);
  });

  it('gives up with 422 request_failure after the last attempt', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw new VersionConflictError('lost');
      }, 3),
    ).rejects.toMatchObject({ status: 422, code: 'request_failure' });
    expect(calls).toBe(3);
  });

  it('passes other errors through at once', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});
