/**
 * An on-paper cloud latency estimate from DynamoDB counts: what a request would take on Lambda
 * behind API Gateway if its time were the fixed request overhead plus its sequential round
 * trips to DynamoDB. Local figures cannot say this (the emulator is in-process and slow per
 * call, the network is loopback); counts can.
 *
 * A round's latency is the slowest call in it (calls sent together wait for the last one).
 * When only calls by operation and a round count are known (a runtime without the cost
 * header), each round is taken at the calls' average latency (the operation mix).
 */

/** Assumed in-region latency of one DynamoDB call, by operation, in ms (typical single-digit p50s). */
export const CALL_MS: Readonly<Record<string, number>> = {
  GetItem: 5,
  Query: 5,
  PutItem: 5,
  UpdateItem: 5,
  DeleteItem: 5,
  BatchGetItem: 6,
  BatchWriteItem: 8,
  TransactGetItems: 8,
  TransactWriteItems: 12,
  Scan: 10,
};
/** An operation not listed in `CALL_MS`. */
export const OTHER_CALL_MS = 5;
/** Assumed Lambda (warm) + API Gateway HTTP API overhead per request, in ms. */
export const REQUEST_OVERHEAD_MS = 15;

/** One call's assumed latency. */
export const callMs = (operation: string) => CALL_MS[operation] ?? OTHER_CALL_MS;

/** Estimate from the operations of each round: overhead + Σ (slowest call of the round). */
export function estimateFromRounds(roundOperations: readonly (readonly string[])[]): number {
  return REQUEST_OVERHEAD_MS + roundOperations.reduce((sum, round) => sum + Math.max(...round.map(callMs)), 0);
}

/** Estimate from counts only: overhead + rounds × the mean latency of the calls made. */
export function estimateFromMix(rounds: number, byOperation: Readonly<Record<string, number>>): number {
  const calls = Object.values(byOperation).reduce((a, b) => a + b, 0);
  if (calls === 0) return REQUEST_OVERHEAD_MS;
  const mean = Object.entries(byOperation).reduce((sum, [op, n]) => sum + callMs(op) * n, 0) / calls;
  return REQUEST_OVERHEAD_MS + rounds * mean;
}

/** The assumptions, one line, for the bench's printout. */
export function assumptions(): string {
  const groups = new Map<number, string[]>();
  for (const [op, ms] of Object.entries(CALL_MS)) groups.set(ms, [...(groups.get(ms) ?? []), op]);
  const calls = [...groups].map(([ms, ops]) => `${ops.join('/')} ${ms} ms`).join(', ');
  return `per call ${calls} (others ${OTHER_CALL_MS} ms); Lambda + API Gateway ${REQUEST_OVERHEAD_MS} ms per request`;
}
