/**
 * Hosted functions on AWS Lambda (functions.md §10): one real Lambda per hosted function, named
 * from its ref, created or updated from the merchant's zip plus the platform wrapper, and called
 * synchronously by the router.
 *
 * - deploy: the package (merchant files, the runtime's wrapper under `__cartwheel__/`, and
 *   `__cartwheel__/handler.json` naming the merchant's handler) is staged in the functions bucket
 *   under a key of its own per deployment, handed to CreateFunction or UpdateFunctionCode, and
 *   deleted once Lambda serves it (Lambda keeps its own copy; a crash leaves it to the bucket's
 *   lifecycle rule on `deployed/`). Waits use the SDK's waiters. Failures the merchant can act on
 *   answer `{ok: false}`; transient ones (throttling, 5xx, network, a wait that ran out) throw so
 *   the due work that runs the deployment tries again with the same `deploymentId`.
 * - invoke: never waits for updates (Lambda serves the previous code until an update is live) and
 *   never retries a call that may have run; it answers an outcome for everything the service can
 *   say, so a burst or an idle function never turns into a 500.
 *
 * The SDK is imported and the clients are built on first use: a family that never touches
 * functions pays nothing for them at start.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { traced } from '../../core/tracing';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';
import type { GetFunctionCommandOutput, LambdaClient, UpdateFunctionConfigurationCommandInput } from '@aws-sdk/client-lambda';
import { FUNCTION_PACKAGE_LIMITS, openZipPackage } from '../../core/packages/zip-package';
import { localClientOptions } from '../../store/client';
import type { DeployOutcome, FunctionDeployment, FunctionRef, FunctionRunner, FunctionRuntime, InvokeOutcome, InvokeTarget, ObjectStorage } from '../ports';

/** Options of the Lambda runner (shared/app/platforms.ts builds it from the configuration). */
export interface LambdaFunctionsOptions {
  region: string;
  /** Endpoint override (tests, emulators). */
  endpoint?: string;
  /** The one execution role every hosted function runs with (logs only). */
  executionRoleArn: string;
  /** Short, stage-derived prefix of every function name, e.g. `cwfn-prod` (also the `cartwheel:platform` tag). */
  namePrefix: string;
  /** Where the merchants' zips are (read with `get('functions', codeKey)`) and packages are staged. */
  objects: ObjectStorage;
  /** Name of the `functions` bucket, which CreateFunction and UpdateFunctionCode read the staged package from. */
  codeBucket: string;
  /** More tags on every function (beside the four the runner always sets). */
  tags?: Record<string, string>;
  /**
   * How long an invocation may take before it answers `timeout` (functions.md §8: the router
   * answers 504 after 29 s). @default 28 000 ms: the router's own Lambda stops at 29 s and the
   * HTTP API at 30 s, and authentication and mapping need their share of that.
   */
  invokeTimeoutMs?: number;
  /** Waiter settings in seconds. @default poll every 1 to 5 s, give up (and throw) after 120 s */
  waits?: { minDelay: number; maxDelay: number; maxWaitTime: number };
  /** Pause before retrying a call to a function that is not ready yet (doubling each time). @default 1000 ms */
  notReadyPauseMs?: number;
  /** How long a call waits for a function that is not ready before answering `throttled`. @default 10 000 ms */
  notReadyBudgetMs?: number;
  /** Folder holding `node/` and `python/` wrappers. @default the copy beside the bundle, else the source tree's */
  wrapperDir?: string;
}

/** Key prefix of staged packages in the functions bucket (granted with `functions: 'manage'`; expired by a lifecycle rule). */
export const STAGED_PACKAGES_PREFIX = 'deployed/';

/** The staged package of one deployment: never overwritten with other content (a repeat writes the same bytes). */
export function stagedPackageKey(ref: FunctionRef, deploymentId: string): string {
  return `${STAGED_PACKAGES_PREFIX}${ref.accountId}/${ref.mode}/${ref.functionId}/${deploymentId}/package.zip`;
}

/** The Lambda function name of a hosted function: unique per stack, at most 64 characters. */
export function lambdaFunctionName(namePrefix: string, ref: FunctionRef): string {
  return `${namePrefix}-${ref.mode}-${ref.accountId}-${ref.functionId}`;
}

/** Longest prefix that keeps every name within Lambda's 64 characters (`-live-` and two 12-character ids). */
export const MAX_FUNCTIONS_PREFIX_LENGTH = 64 - '-live-'.length - 12 - '-'.length - 12;

/** The tags the runner sets on every function (the `invoke` grant is conditioned on `cartwheel:platform`). */
export const FUNCTION_TAGS = { account: 'cartwheel:account', function: 'cartwheel:function', mode: 'cartwheel:mode', platform: 'cartwheel:platform' } as const;

/** The wrapper's entry points by runtime; Java and .NET run the merchant's handler as it is. */
const WRAPPERS: Partial<Record<FunctionRuntime, { folder: string; handler: string }>> = {
  'nodejs22.x': { folder: 'node', handler: '__cartwheel__/index.handler' },
  'python3.13': { folder: 'python', handler: '__cartwheel__/cartwheel_wrapper.handler' },
};

/** Lambda error names that mean "the service is busy": the caller gets 429, a deployment tries again. */
const THROTTLING = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling', 'ThrottledException', 'RequestLimitExceeded', 'EC2ThrottledException']);

/** Deployment errors the merchant can act on (bad code, a package Lambda refuses, no room left). */
const MERCHANT_DEPLOY_ERRORS = new Set([
  'InvalidParameterValueException',
  'CodeStorageExceededException',
  'CodeVerificationFailedException',
  'InvalidCodeSignatureException',
  'RequestTooLargeException',
  'InvalidZipFileException',
  'InvalidRuntimeException',
  'InvalidPackageError',
  'PackageTooLargeError',
]);

/** Invocation errors that mean "not ready yet" (Pending after an update, Inactive after weeks idle): nothing ran. */
const NOT_READY = new Set(['ResourceNotReadyException', 'ResourceConflictException']);

type LambdaSdk = typeof import('@aws-sdk/client-lambda');

/** Runs hosted functions as Lambda functions. */
export function lambdaFunctions(options: LambdaFunctionsOptions): FunctionRunner {
  if (options.namePrefix.length > MAX_FUNCTIONS_PREFIX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(options.namePrefix)) {
    throw new Error(`Functions name prefix "${options.namePrefix}" must be letters, digits, - or _ and at most ${MAX_FUNCTIONS_PREFIX_LENGTH} characters`);
  }
  const waits = options.waits ?? { minDelay: 1, maxDelay: 5, maxWaitTime: 120 };
  const invokeTimeoutMs = options.invokeTimeoutMs ?? 28_000;
  const notReadyPauseMs = options.notReadyPauseMs ?? 1000;
  const notReadyBudgetMs = Math.min(options.notReadyBudgetMs ?? 10_000, invokeTimeoutMs);
  const nameOf = (ref: FunctionRef) => lambdaFunctionName(options.namePrefix, ref);

  let sdk: Promise<LambdaSdk> | undefined;
  let manage: LambdaClient | undefined;
  let invoke: LambdaClient | undefined;
  const lambda = async () => {
    const module = await (sdk ??= import('@aws-sdk/client-lambda'));
    // Management calls may retry (they are repeatable); invocations never do: a retried call may
    // run merchant code twice, and a throttled one must answer 429 at once (functions.md §8).
    manage ??= traced(new module.LambdaClient({ region: options.region, maxAttempts: 3, ...localClientOptions(options.endpoint) }));
    invoke ??= traced(new module.LambdaClient({ region: options.region, maxAttempts: 1, ...localClientOptions(options.endpoint) }));
    return { sdk: module, manage, invoke };
  };

  let wrappers: Map<string, { path: string; data: Buffer }[]> | undefined;
  const wrapperFiles = (folder: string) => {
    wrappers ??= new Map();
    let files = wrappers.get(folder);
    if (!files) {
      const root = path.join(options.wrapperDir ?? wrapperDirectory(), folder);
      files = filesUnder(root).map((file) => ({ path: `__cartwheel__/${file}`, data: readFileSync(path.join(root, file)) }));
      wrappers.set(folder, files);
    }
    return files;
  };

  /** The deployed package: merchant files, then the wrapper and `handler.json` (which win over anything under `__cartwheel__/`). */
  async function buildPackage(deployment: FunctionDeployment): Promise<Buffer> {
    const upload = await options.objects.get('functions', deployment.codeKey);
    if (!upload) throw new MerchantError('The uploaded code package is missing; upload the code again.');
    const merchant = await openZipPackage(upload, FUNCTION_PACKAGE_LIMITS);
    const zip = new yazl.ZipFile();
    const output = collect(zip);
    // Fixed times and modes make a repeated deployment stage the same bytes. The upload reader
    // keeps no modes; every file is executable so bundled binaries keep working (the code is read-only).
    const entry = { mtime: PACKAGE_TIME, mode: 0o100755 };
    for (const file of merchant.files) {
      if (file.path.startsWith('__cartwheel__/')) continue;
      // Inflated only when the zip writer reaches it: one merchant file in memory at a time.
      zip.addReadStreamLazy(file.path, { ...entry, size: file.bytes }, (done) => {
        merchant.read(file).then((data) => done(null, Readable.from([data])), (error: unknown) => done(error, undefined as never));
      });
    }
    const wrapper = WRAPPERS[deployment.runtime];
    if (wrapper) for (const file of wrapperFiles(wrapper.folder)) zip.addBuffer(file.data, file.path, entry);
    zip.addBuffer(Buffer.from(JSON.stringify({ handler: deployment.handler })), '__cartwheel__/handler.json', entry);
    zip.end();
    return output;
  }

  /** Waits with one of the SDK's waiters; answers the failure reason when the function ended `Failed`, throws when the wait ran out. */
  async function waitFor(which: 'active' | 'updated', name: string): Promise<string | undefined> {
    const { sdk: module, manage: client } = await lambda();
    const waiter = which === 'active' ? module.waitUntilFunctionActiveV2 : module.waitUntilFunctionUpdatedV2;
    try {
      await waiter({ client, ...waits }, { FunctionName: name });
      return undefined;
    } catch (error) {
      // Ran out of time or aborted: transient, the deployment is repeated.
      if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') throw error;
      const configuration = (await client.send(new module.GetFunctionCommand({ FunctionName: name }))).Configuration;
      if (configuration?.State === 'Failed') return failureMessage(configuration.StateReason, configuration.StateReasonCode);
      if (configuration?.LastUpdateStatus === 'Failed') return failureMessage(configuration.LastUpdateStatusReason, configuration.LastUpdateStatusReasonCode);
      throw error;
    }
  }

  /** Sends an update, waiting out an update already in progress (ResourceConflictException) a few times. */
  async function whenNotUpdating<T>(name: string, send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if ((error as Error).name !== 'ResourceConflictException' || attempt >= 4) throw error;
        await waitFor('updated', name);
      }
    }
  }

  async function deploy(deployment: FunctionDeployment): Promise<DeployOutcome> {
    const { sdk: module, manage: client } = await lambda();
    const name = nameOf(deployment);
    const configuration: UpdateFunctionConfigurationCommandInput = {
      FunctionName: name,
      Runtime: deployment.runtime,
      Handler: WRAPPERS[deployment.runtime]?.handler ?? deployment.handler,
      Role: options.executionRoleArn,
      MemorySize: deployment.memoryMb,
      Timeout: deployment.timeoutSeconds,
      Environment: { Variables: deployment.environment },
    };
    const stagedKey = stagedPackageKey(deployment, deployment.deploymentId);
    let staged: Promise<{ S3Bucket: string; S3Key: string }> | undefined;
    const stage = () =>
      (staged ??= (async () => {
        await options.objects.put('functions', stagedKey, await buildPackage(deployment), 'application/zip');
        return { S3Bucket: options.codeBucket, S3Key: stagedKey };
      })());

    let existing: GetFunctionCommandOutput | undefined;
    try {
      existing = await client.send(new module.GetFunctionCommand({ FunctionName: name }));
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
    // A function whose creation failed never served: it is made again rather than repaired.
    if (existing?.Configuration?.State === 'Failed') {
      await client.send(new module.DeleteFunctionCommand({ FunctionName: name }));
      existing = undefined;
    }

    if (!existing) {
      // Even a settings-only change creates the function with its code when none exists yet
      // (a first deployment that failed): `codeKey` is always the code to serve.
      let created = true;
      try {
        await client.send(
          new module.CreateFunctionCommand({
            ...configuration,
            FunctionName: name,
            Role: options.executionRoleArn,
            Code: await stage(),
            PackageType: 'Zip',
            Architectures: ['x86_64'],
            Description: `Cartwheel hosted function ${deployment.functionId} (${deployment.mode})`,
            Tags: {
              ...options.tags,
              [FUNCTION_TAGS.account]: deployment.accountId,
              [FUNCTION_TAGS.function]: deployment.functionId,
              [FUNCTION_TAGS.mode]: deployment.mode,
              [FUNCTION_TAGS.platform]: options.namePrefix,
            },
          }),
        );
      } catch (error) {
        // Another run of this deployment created it meanwhile: update it like any existing one.
        if ((error as Error).name !== 'ResourceConflictException') throw error;
        created = false;
      }
      if (created) {
        const failed = await waitFor('active', name);
        await options.objects.delete('functions', stagedKey);
        return failed ? { ok: false, message: failed } : { ok: true };
      }
    } else if (existing.Configuration?.State === 'Pending') {
      // Created by a run that stopped before it was active.
      const failed = await waitFor('active', name);
      if (failed) return { ok: false, message: failed };
    }

    if (!deployment.settingsOnly || !existing) {
      const code = await stage();
      await whenNotUpdating(name, () => client.send(new module.UpdateFunctionCodeCommand({ FunctionName: name, ...code })));
      const failed = await waitFor('updated', name);
      await options.objects.delete('functions', stagedKey);
      if (failed) return { ok: false, message: failed };
    }
    await whenNotUpdating(name, () => client.send(new module.UpdateFunctionConfigurationCommand(configuration)));
    const failed = await waitFor('updated', name);
    return failed ? { ok: false, message: failed } : { ok: true };
  }

  async function invokeOnce(client: LambdaClient, module: LambdaSdk, name: string, payload: Uint8Array, signal: AbortSignal) {
    return client.send(new module.InvokeCommand({ FunctionName: name, InvocationType: 'RequestResponse', Payload: payload }), { abortSignal: signal });
  }

  return {
    async deploy(deployment) {
      try {
        return await deploy(deployment);
      } catch (error) {
        const message = merchantMessage(error);
        if (message) return { ok: false, message };
        throw error;
      }
    },

    async remove(ref) {
      const { sdk: module, manage: client } = await lambda();
      const name = nameOf(ref);
      try {
        await whenNotUpdating(name, () => client.send(new module.DeleteFunctionCommand({ FunctionName: name })));
      } catch (error) {
        if ((error as Error).name !== 'ResourceNotFoundException') throw error;
      }
      // Staged packages are deleted as soon as Lambda serves them; one a crash left behind goes
      // with the bucket's lifecycle rule on `deployed/`. The uploaded zips are the module's.
    },

    async invoke(target, event) {
      const { sdk: module, invoke: client } = await lambda();
      const name = nameOf(target);
      const payload = Buffer.from(JSON.stringify(event));
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          controller.abort();
          resolve('timeout');
        }, invokeTimeoutMs);
      });
      const startedAt = Date.now();
      try {
        for (let pause = notReadyPauseMs; ; pause *= 2) {
          try {
            const result = await Promise.race([invokeOnce(client, module, name, payload, controller.signal), deadline]);
            if (result === 'timeout') return { kind: 'timeout' };
            return outcomeOf(target.runtime, result.FunctionError, result.Payload);
          } catch (error) {
            const errorName = (error as Error).name;
            // Pending (an update or a first deployment in progress) or Inactive (idle for weeks, being
            // restored): the function did not run, so trying again is safe. The router's role may only
            // invoke, so this pauses and retries instead of polling GetFunction with a waiter. Still not
            // ready after about 10 s: `throttled` (429 with Retry-After), because the condition passes
            // by itself and the client should simply call again; 404 would say the function is gone
            // and 502 that its code failed, neither of which is true.
            if (NOT_READY.has(errorName)) {
              if (Date.now() - startedAt + pause > notReadyBudgetMs) return { kind: 'throttled' };
              const waited = await Promise.race([sleep(pause), deadline]);
              if (waited === 'timeout') return { kind: 'timeout' };
              continue;
            }
            return invokeFailure(error);
          }
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The outcome of a call Lambda answered (functions.md §7.6, §10). */
export function outcomeOf(runtime: FunctionRuntime, functionError: string | undefined, payload: Uint8Array | undefined): InvokeOutcome {
  const text = payload ? Buffer.from(payload).toString('utf8') : '';
  let value: unknown;
  try {
    value = text === '' ? undefined : JSON.parse(text);
  } catch {
    return { kind: 'crashed', message: 'The function answered something other than JSON.' };
  }
  if (functionError) {
    // Unhandled: the runtime's own report `{errorType, errorMessage, trace}`. With a wrapper it
    // means the wrapper could not run (a crash, the time or memory limit); without one (Java,
    // .NET) a thrown exception arrives here too, under the exception's type.
    const report = (isObject(value) ? value : {}) as { errorType?: unknown; errorMessage?: unknown };
    const errorType = typeof report.errorType === 'string' ? report.errorType : functionError;
    const errorMessage = typeof report.errorMessage === 'string' ? report.errorMessage : '';
    if (errorType === 'Sandbox.Timedout' || /Task timed out/.test(errorMessage)) return { kind: 'timeout' };
    if (errorType === 'Runtime.OutOfMemory') return { kind: 'out_of_memory' };
    if (/^(Runtime|Sandbox|Function)\./.test(errorType) || errorType === 'Unhandled' || errorType === 'Handled') {
      // Function.ResponseSizeTooLarge (a success above 6 MB) lands here too: the port has no
      // "invalid response" outcome, so it is reported as a crash naming the reason.
      return { kind: 'crashed', message: errorMessage || errorType };
    }
    return { kind: 'error', errorType, errorMessage };
  }
  if (!WRAPPERS[runtime]) return { kind: 'returned', value };
  const answer = isObject(value) ? value.__cartwheel__ : undefined;
  if (!isObject(answer)) return { kind: 'crashed', message: 'The platform wrapper did not answer.' };
  if (answer.kind === 'returned') return { kind: 'returned', value: answer.value };
  if (answer.kind === 'error') return { kind: 'error', errorType: String(answer.errorType ?? 'Error'), errorMessage: String(answer.errorMessage ?? '') };
  if (answer.kind === 'timeout') return { kind: 'timeout' };
  if (answer.kind === 'out_of_memory') return { kind: 'out_of_memory' };
  if (answer.kind === 'crashed') return { kind: 'crashed', ...(typeof answer.message === 'string' ? { message: answer.message } : {}) };
  return { kind: 'crashed', message: `The platform wrapper answered an unknown kind ${JSON.stringify(answer.kind)}.` };
}

/** The outcome of an Invoke the service refused or could not complete (never a rejection: the router answers something). */
function invokeFailure(error: unknown): InvokeOutcome {
  const name = (error as Error).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (THROTTLING.has(name) || status === 429) return { kind: 'throttled' };
  if (name === 'ResourceNotFoundException') return { kind: 'not_found' };
  if (name === 'AbortError' || name === 'TimeoutError') return { kind: 'timeout' };
  // The function cannot start (its package, runtime or key) or the service failed: 502 with the reason.
  return { kind: 'crashed', message: `The function could not be run (${name}): ${(error as Error).message}` };
}

/** The message of a deployment failure the merchant can act on, or undefined for one to retry. */
function merchantMessage(error: unknown): string | undefined {
  if (error instanceof MerchantError) return error.message;
  const name = (error as Error).name;
  if (!MERCHANT_DEPLOY_ERRORS.has(name)) return undefined;
  const message = (error as Error).message;
  // Right after the stack is deployed IAM may not have propagated the execution role yet.
  if (name === 'InvalidParameterValueException' && /cannot be assumed by Lambda/i.test(message)) return undefined;
  return message;
}

/** A failed state's reason as `status_message`; an internal error is Lambda's, so it is retried. */
function failureMessage(reason: string | undefined, code: string | undefined): string {
  if (code === 'InternalError') throw new Error(`Lambda reported an internal error: ${reason ?? ''}`);
  return `${reason ?? 'The deployment failed.'}${code ? ` (${code})` : ''}`;
}

/** A refusal that is the merchant's to fix, thrown inside a deployment and answered as `{ok: false}`. */
class MerchantError extends Error {
  override name = 'MerchantError';
}

/** The folder of the runtime wrappers: beside the bundle in a Lambda (copied by the CDK), else in the source tree. */
export function wrapperDirectory(from: string = import.meta.url): string {
  const candidates = [new URL('./function-wrapper/', from), new URL('../function-wrapper/', from)].map((url) => fileURLToPath(url));
  const found = candidates.find((candidate) => existsSync(path.join(candidate, 'node')));
  if (!found) throw new Error(`The function wrapper files are missing (looked in ${candidates.join(', ')})`);
  return found;
}

/** Regular files under `root`, relative, in a stable order (caches and dot files left out). */
function filesUnder(root: string, prefix = ''): string[] {
  const names = readdirSync(path.join(root, prefix)).sort();
  return names.flatMap((name) => {
    if (name.startsWith('.') || name === '__pycache__') return [];
    const relative = prefix ? `${prefix}/${name}` : name;
    return statSync(path.join(root, relative)).isDirectory() ? filesUnder(root, relative) : [relative];
  });
}

/** Fixed entry time of staged packages (so a repeat builds the same bytes). */
const PACKAGE_TIME = new Date('2020-01-01T00:00:00Z');

/** The zip's bytes; a file that could not be read (yazl reports it on the zip itself) rejects. */
function collect(zip: yazl.ZipFile): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.on('error', reject);
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
