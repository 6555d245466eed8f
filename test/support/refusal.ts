/** What an API error carries, for tests that check a refusal's envelope fields. */
export interface Refusal {
  status: number;
  code: string;
  meta: Record<string, unknown>;
  message: string;
}

/**
 * The error a promise is refused with, for asserting on its fields; fails the test when it resolves.
 *
 * @example expect(await refusal(uploadImage(platform, input))).toMatchObject({ status: 400, meta: { reason: 'too_large' } });
 */
export async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (error) {
    return error as Refusal;
  }
  throw new Error('expected a refusal');
}
