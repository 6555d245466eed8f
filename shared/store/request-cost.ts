/**
 * What a piece of work costs in DynamoDB: calls, by operation, and sequential round trips.
 *
 * `measureCost(fn)` runs `fn` in an AsyncLocalStorage context; a middleware on the shared
 * client (`meterRequestCost`, added in `client.ts`) counts every call made inside it. A
 * sequential round trip is each time the context's in-flight call count goes from 0 to 1:
 * calls issued together (`Promise.all`) share one round, calls awaited one after another each
 * take their own. Rounds, not calls, are what a request waits for in the cloud, so they are
 * what an on-paper latency estimate multiplies.
 *
 * Outside `measureCost` the middleware does nothing but one `getStore()`, so the cloud pays
 * nothing for it; the local gateway measures each API request and reports the result in the
 * `x-cartwheel-dynamodb` response header (`formatCost` / `parseCost`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AbsoluteLocation, FinalizeRequestHandlerOptions, FinalizeRequestMiddleware, MiddlewareStack } from '@smithy/types';

/** DynamoDB calls made inside one `measureCost`, live while the work runs. */
export interface RequestCost {
  /** Calls sent (each SDK attempt counts: a retried call is two). */
  calls: number;
  /** Sequential round trips: times the in-flight count went from 0 to 1. */
  rounds: number;
  /** Calls sent and not yet settled. */
  inFlight: number;
  /** Calls by operation name (`GetItem`, `Query`, `TransactWriteItems`, ...). */
  byOperation: Record<string, number>;
  /** The operations started in each round, in order: `[['GetItem'], ['Query', 'GetItem']]`. */
  roundOperations: string[][];
}

const costs = new AsyncLocalStorage<RequestCost>();

/** An empty cost. */
function emptyCost(): RequestCost {
  return { calls: 0, rounds: 0, inFlight: 0, byOperation: {}, roundOperations: [] };
}

/** A copy that later calls (work left running after `fn` settled) no longer change. */
function snapshot(cost: RequestCost): RequestCost {
  return { ...cost, byOperation: { ...cost.byOperation }, roundOperations: cost.roundOperations.map((round) => [...round]) };
}

/**
 * Runs `fn` with a fresh cost context and resolves with its value and what it cost, as counted
 * the moment `fn` settled (a rejection is passed on, uncounted).
 *
 * @example const { value: result, cost } = await measureCost(() => handler(event, context));
 */
export async function measureCost<T>(fn: () => Promise<T> | T): Promise<{ value: T; cost: RequestCost }> {
  const cost = emptyCost();
  const value = await costs.run(cost, fn);
  return { value, cost: snapshot(cost) };
}

/** The live cost of the `measureCost` this code runs in, or undefined outside one. */
export function currentCost(): RequestCost | undefined {
  return costs.getStore();
}

/** `GetItemCommand` → `GetItem` (the name DynamoDB and the emulator's metrics use). */
function operationName(commandName: string | undefined): string {
  return (commandName ?? 'Unknown').replace(/Command$/, '');
}

/** Counts one call in the active cost context, if there is one; settles it when the call does. */
const countCall: FinalizeRequestMiddleware<object, object> = (next, context) => async (args) => {
  const cost = costs.getStore();
  if (!cost) return next(args);
  const operation = operationName(context.commandName);
  cost.calls++;
  cost.byOperation[operation] = (cost.byOperation[operation] ?? 0) + 1;
  if (cost.inFlight++ === 0) {
    cost.rounds++;
    cost.roundOperations.push([operation]);
  } else {
    cost.roundOperations.at(-1)!.push(operation);
  }
  try {
    return await next(args);
  } finally {
    cost.inFlight--;
  }
};

/**
 * Innermost in `finalizeRequest`: inside the SDK's retry loop and after signing, so each
 * attempt is one call, timed from just before it is sent to its parsed answer or error.
 */
const countCallOptions: FinalizeRequestHandlerOptions & AbsoluteLocation = { step: 'finalizeRequest', priority: 'low', name: 'cartwheelRequestCost' };

/** Adds the call counter to a client's middleware stack (the shared client does, once). */
export function meterRequestCost(client: { middlewareStack: MiddlewareStack<any, any> }): void {
  client.middlewareStack.add(countCall as FinalizeRequestMiddleware<any, any>, countCallOptions);
}

/** The response header the local gateway reports a request's cost in. */
export const COST_HEADER = 'x-cartwheel-dynamodb';

/**
 * The header value: `calls=3; rounds=2; ops=GetItem,Query+GetItem` (rounds separated by
 * commas, the operations started in one round joined by `+`; `ops=` is left out when empty).
 */
export function formatCost(cost: RequestCost): string {
  const ops = cost.roundOperations.map((round) => round.join('+')).join(',');
  return `calls=${cost.calls}; rounds=${cost.rounds}${ops ? `; ops=${ops}` : ''}`;
}

/** Reads a `formatCost` header value back (for benches and tests); undefined if it is not one. */
export function parseCost(header: string | null | undefined): Pick<RequestCost, 'calls' | 'rounds' | 'roundOperations' | 'byOperation'> | undefined {
  const match = /^calls=(\d+); rounds=(\d+)(?:; ops=(.*))?$/.exec(header?.trim() ?? '');
  if (!match) return undefined;
  const roundOperations = match[3] ? match[3].split(',').map((round) => round.split('+')) : [];
  const byOperation: Record<string, number> = {};
  for (const operation of roundOperations.flat()) byOperation[operation] = (byOperation[operation] ?? 0) + 1;
  return { calls: Number(match[1]), rounds: Number(match[2]), roundOperations, byOperation };
}
