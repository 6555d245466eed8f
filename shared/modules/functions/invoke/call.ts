/**
 * Calling a function's serving deployment through the runner port, within the account's limit
 * of concurrent invocations: what the invoke surface and event delivery (events.md §9) share.
 */
import { logger } from '../../../core/logging';
import type { InvokeOutcome, InvokeTarget, Platform } from '../../../platform/ports';
import { runnerOf } from '../deploy-work';
import type { HostedFunctionRecord } from '../records';
import { openVariables } from '../variables';
import { takeInvocationSlot } from './concurrency';
import type { FunctionEvent } from './event';

/** The deployment a function serves now, as the runner calls it; undefined before its first deployment went live. */
export function servingTarget(platform: Pick<Platform, 'secrets'>, record: HostedFunctionRecord): InvokeTarget | undefined {
  const serving = record.serving;
  if (!serving) return undefined;
  const scope = { accountId: record.account_id, mode: record.mode };
  return {
    accountId: record.account_id,
    mode: record.mode,
    functionId: record.hosted_function_id,
    deploymentId: serving.deployment_id,
    codeKey: serving.code_key,
    runtime: serving.runtime,
    handler: serving.handler,
    timeoutSeconds: serving.timeout,
    memoryMb: serving.memory_mb,
    environment: () => openVariables(serving.secrets_sealed, scope, record.hosted_function_id, platform.secrets),
  };
}

/**
 * Calls `target` with `event` if the account has a free slot (§8); answers `throttled` at once
 * when it has none, without calling.
 */
export async function callFunction(platform: Pick<Platform, 'functions' | 'clock'>, target: InvokeTarget, event: FunctionEvent): Promise<InvokeOutcome> {
  const release = await takeInvocationSlot(platform.clock, { accountId: target.accountId, mode: target.mode }, target.timeoutSeconds * 1000);
  if (!release) return { kind: 'throttled' };
  try {
    return await runnerOf(platform).invoke(target, event);
  } finally {
    // A slot not given back (the table unreachable) frees itself when its lease ends.
    await release().catch((error: unknown) => logger.error('An invocation slot could not be given back; its lease will end', { functionId: target.functionId, error: error as Error }));
  }
}
