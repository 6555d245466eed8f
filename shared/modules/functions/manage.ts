/**
 * Creating, changing and deleting hosted functions (functions.md §3-§6). Everything that can
 * refuse a request (fields, the handler's form, the zip and the handler file in it, variables)
 * runs before anything is written, so a refused request changes nothing. Deployment is due work
 * (./deploy-work): the request records the pending deployment and its claimed work in one
 * transaction, stores the zip, and runs the work at once, so local deployments are finished when
 * the answer is sent.
 */
import { newId } from '../../core/ids';
import { InvalidPackageError } from '../../core/packages/errors';
import { FUNCTION_PACKAGE_LIMITS, openZipPackage } from '../../core/packages/zip-package';
import { InvalidInputError } from '../../http/errors';
import type { FunctionRuntime, Platform } from '../../platform/ports';
import { invalid } from '../../rest/input';
import { startListedRecord } from '../../store/offset-index';
import type { RecordScope } from '../../store/records';
import type { TransactEntry } from '../../store/transact';
import type { HostedFunctionView } from './declaration';
import { codeKeyOf, deployEntry, deployNow, removalEntry, removeNow } from './deploy-work';
import type { DeploymentSpec, FunctionCodeAndSettings, HostedFunctionRecord } from './records';
import { handlerFiles, handlerFormProblem, type HostedFunctionCreate, type HostedFunctionUpdate } from './schemas';
import { findHostedFunction, insertHostedFunction, removeHostedFunction, reserveHostedFunctionSequence, updateHostedFunction } from './hosted-function-store';
import { openVariables, sealVariables, variablesAfter, type Variables } from './variables';

/** The uploaded zip of a request. */
export interface UploadedCode {
  filename: string;
  data: Buffer;
}

/** The reserved folder of the platform wrapper (§4). */
const RESERVED_FOLDER = '__cartwheel__';

/** Defaults of §1. */
const DEFAULT_TIMEOUT = 30;
const DEFAULT_MEMORY_MB = 256;

/** 400 on `handler` when its form does not fit the runtime. */
function checkHandlerForm(runtime: FunctionRuntime, handler: string): void {
  const problem = handlerFormProblem(runtime, handler);
  if (problem) invalid('handler', `The property handler ${problem} for the runtime ${runtime}.`);
}

/**
 * Reads the zip with every safety check (shared/core/packages), refuses the reserved folder, and,
 * for Node.js and Python, the package without the handler's file (§2, §4).
 */
async function checkPackage(zip: Buffer, runtime: FunctionRuntime, handler: string): Promise<void> {
  const pkg = await openZipPackage(zip, FUNCTION_PACKAGE_LIMITS);
  const reserved = pkg.files.find((file) => file.path === RESERVED_FOLDER || file.path.startsWith(`${RESERVED_FOLDER}/`));
  if (reserved) throw new InvalidPackageError('reserved_path', `The package may not hold anything under ${RESERVED_FOLDER}/ (the platform's own folder).`, { path: reserved.path });
  const candidates = handlerFiles(runtime, handler);
  if (candidates.length === 0) return;
  const present = new Set(pkg.files.map((file) => file.path));
  if (!candidates.some((path) => present.has(path))) {
    throw new InvalidInputError(`The handler ${handler} needs ${candidates.join(' or ')} in the package, which has none of them.`, { property: 'handler', reason: 'invalid', expected_files: candidates });
  }
}

/** The runtime a body names under either property, or the fallback. */
function runtimeOf(fields: { runtime?: FunctionRuntime | undefined; environment?: FunctionRuntime | undefined }): FunctionRuntime | undefined {
  return fields.runtime ?? fields.environment;
}

/**
 * Creates a function from a zip: 201 with it, normally `active` already (local) or `pending`
 * (cloud, clients poll). The record and its claimed deployment work commit first, then the zip is
 * stored and the deployment runs.
 */
export async function createHostedFunction(platform: Platform, scope: RecordScope, fields: HostedFunctionCreate, code: UploadedCode): Promise<HostedFunctionView> {
  const runtime = runtimeOf(fields) ?? invalid('runtime', 'The property runtime is required.', 'required');
  checkHandlerForm(runtime, fields.handler);
  await checkPackage(code.data, runtime, fields.handler);
  const variables = variablesAfter(fields.environment_variables ?? [], {});

  const functionId = newId();
  const deploymentId = newId();
  const codeKey = codeKeyOf(scope, functionId, deploymentId);
  const secretsSealed = await sealVariables(variables, scope, functionId, platform.secrets);
  const start = await startListedRecord(scope, reserveHostedFunctionSequence, platform.clock);
  const settings: FunctionCodeAndSettings = {
    code_key: codeKey,
    filename: code.filename,
    bytes: code.data.length,
    runtime,
    handler: fields.handler,
    timeout: fields.timeout ?? DEFAULT_TIMEOUT,
    memory_mb: fields.memory_mb ?? DEFAULT_MEMORY_MB,
    variable_names: Object.keys(variables),
    secrets_sealed: secretsSealed,
  };
  const spec: DeploymentSpec = { ...settings, deployment_id: deploymentId, settings_only: false };
  const record: HostedFunctionRecord = {
    hosted_function_id: functionId,
    name: fields.name,
    description: fields.description ?? null,
    ...settings,
    status: 'pending',
    status_message: null,
    serving: null,
    pending: spec,
    code_keys: [codeKey],
    deployed_ms: null,
    ...start,
  };
  const work = deployEntry(platform, scope, functionId);
  await insertHostedFunction(scope, record, [work]);
  await storeAndDeploy(platform, work, code.data, codeKey);
  return { ...((await findHostedFunction(scope, functionId)) ?? record), variables };
}

/**
 * Stores the zip under its new key, then runs the deployment. A zip that could not be stored
 * still runs the deployment, which fails the function (or the update) with a message to upload
 * again, so nothing stays pending; the storage error is answered.
 */
async function storeAndDeploy(platform: Platform, work: TransactEntry, zip: Buffer | undefined, codeKey: string | undefined): Promise<void> {
  try {
    if (zip && codeKey) await platform.objects.put('functions', codeKey, zip, 'application/zip');
  } finally {
    await deployNow(platform, work);
  }
}

/** The settings of an update that change what runs. */
function changesRunning(current: Pick<HostedFunctionRecord, 'runtime' | 'handler' | 'timeout' | 'memory_mb'>, next: Pick<HostedFunctionRecord, 'runtime' | 'handler' | 'timeout' | 'memory_mb'>): boolean {
  return current.runtime !== next.runtime || current.handler !== next.handler || current.timeout !== next.timeout || current.memory_mb !== next.memory_mb;
}

function sameVariables(a: Variables, b: Variables): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name, index) => Object.keys(b)[index] === name && a[name] === b[name]);
}

/**
 * A partial update (§3, §5, §6): new code (multipart `file`) or settings. Name and description
 * alone change the record; variables, timeout and memory redeploy the settings (the function
 * stays `active`); new code, a new runtime or handler deploy anew (`pending` while the previous
 * deployment keeps serving). Every check runs, on the function as the caller `read` it, before
 * anything is written; the write applies the change to the function as stored then (versioned,
 * decided again after a lost race).
 */
export async function updateHostedFunctionSettings(platform: Platform, read: HostedFunctionRecord, fields: HostedFunctionUpdate, code: UploadedCode | undefined): Promise<HostedFunctionView> {
  const scope: RecordScope = { accountId: read.account_id, mode: read.mode };
  const functionId = read.hosted_function_id;
  const runtime = runtimeOf(fields) ?? read.runtime;
  const handler = fields.handler ?? read.handler;
  if (runtime !== read.runtime || handler !== read.handler || code) checkHandlerForm(runtime, handler);
  if (code) await checkPackage(code.data, runtime, handler);
  else if (runtime !== read.runtime || handler !== read.handler) {
    // The stored code must hold the new handler's file.
    const stored = await platform.objects.get('functions', read.code_key);
    if (stored) await checkPackage(stored, runtime, handler);
  }
  const storedVariables = await openVariables(read.secrets_sealed, scope, functionId, platform.secrets);
  const variables = fields.environment_variables !== undefined ? variablesAfter(fields.environment_variables, storedVariables) : storedVariables;
  const variablesChanged = !sameVariables(variables, storedVariables);
  const secretsSealed = variablesChanged ? await sealVariables(variables, scope, functionId, platform.secrets) : read.secrets_sealed;
  const deploymentId = newId();
  const codeKey = code ? codeKeyOf(scope, functionId, deploymentId) : undefined;

  let work: TransactEntry | undefined;
  const saved = (await updateHostedFunction(scope, functionId, (current) => {
    work = undefined;
    const modified = Math.max(platform.clock.nowMs(), current.modified_ms + 1);
    const settings = {
      runtime,
      handler,
      timeout: fields.timeout ?? current.timeout,
      memory_mb: fields.memory_mb ?? current.memory_mb,
    };
    const named = { name: fields.name ?? current.name, description: fields.description !== undefined ? fields.description : current.description };
    const redeploy = code !== undefined || variablesChanged || changesRunning(current, settings) || current.status === 'failed';
    if (!redeploy) return { next: { ...current, ...named, modified_ms: modified } };
    const entry = code && codeKey ? { code_key: codeKey, filename: code.filename, bytes: code.data.length } : { code_key: current.code_key, filename: current.filename, bytes: current.bytes };
    const serving = current.serving;
    const settingsOnly = !code && serving !== null && serving.code_key === entry.code_key && serving.runtime === runtime && serving.handler === handler;
    const spec: DeploymentSpec = { deployment_id: deploymentId, ...entry, ...settings, variable_names: Object.keys(variables), secrets_sealed: secretsSealed, settings_only: settingsOnly };
    work = deployEntry(platform, scope, functionId);
    const next: HostedFunctionRecord = {
      ...current,
      ...named,
      ...settings,
      ...entry,
      variable_names: spec.variable_names,
      secrets_sealed: secretsSealed,
      pending: spec,
      // §3: a settings change keeps the function active; new code or entry point is pending until live.
      status: settingsOnly && current.status === 'active' ? 'active' : 'pending',
      code_keys: codeKey && !current.code_keys.includes(codeKey) ? [...current.code_keys, codeKey] : current.code_keys,
      modified_ms: modified,
    };
    return { next, extra: [work] };
  })) as HostedFunctionRecord;
  if (work) {
    await storeAndDeploy(platform, work, code?.data, codeKey);
    return { ...((await findHostedFunction(scope, functionId)) ?? saved), variables };
  }
  return { ...saved, variables };
}

/** Deletes a function (204): the record and its removal work in one transaction, then the removal runs (§6). */
export async function deleteHostedFunction(platform: Platform, scope: RecordScope, functionId: string): Promise<void> {
  let work: TransactEntry | undefined;
  await removeHostedFunction(scope, functionId, (current) => {
    work = removalEntry(platform, scope, current);
    return [work];
  });
  if (work) await removeNow(platform, work);
}
