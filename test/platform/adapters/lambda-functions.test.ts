/**
 * The Lambda runner of hosted functions (functions.md §10): what it stages and sends to Lambda
 * when it creates, updates and removes a function, and how every answer of Invoke becomes an
 * outcome (never a rejection).
 */
import {
  CreateFunctionCommand,
  DeleteFunctionCommand,
  GetFunctionCommand,
  InvalidParameterValueException,
  InvokeCommand,
  LambdaClient,
  ResourceConflictException,
  ResourceNotFoundException,
  ResourceNotReadyException,
  ServiceException,
  TooManyRequestsException,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
} from '@aws-sdk/client-lambda';
import { Uint8ArrayBlobAdapter } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import yazl from 'yazl';
import { beforeEach, describe, expect, it } from 'vitest';
import { FUNCTION_PACKAGE_LIMITS, openZipPackage } from '../../../shared/core/packages/zip-package';
import {
  lambdaFunctionName,
  lambdaFunctions,
  MAX_FUNCTIONS_PREFIX_LENGTH,
  outcomeOf,
  stagedPackageKey,
  wrapperDirectory,
  type LambdaFunctionsOptions,
} from '../../../shared/platform/adapters/lambda-functions';
import type { FunctionDeployment, FunctionRuntime, InvokeTarget, ObjectStorage } from '../../../shared/platform/ports';

const lambda = mockClient(LambdaClient);
const ROLE = 'arn:aws:iam::123456789012:role/cartwheel-test-functions';
const NAME = 'cwfn-test-live-XG5908XMX3MH-GBH9SKM0WYN7';

const notFound = () => new ResourceNotFoundException({ message: 'Function not found', $metadata: { httpStatusCode: 404 } });
const conflict = () => new ResourceConflictException({ message: 'An update is in progress', $metadata: { httpStatusCode: 409 } });
const throttled = () => new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } });
const active = (extra: Record<string, unknown> = {}) => ({ Configuration: { FunctionName: NAME, State: 'Active' as const, LastUpdateStatus: 'Successful' as const, ...extra } });

/** A bucket in memory that records every write and delete in order. */
function memoryObjects(initial: Record<string, Buffer> = {}) {
  const store = new Map(Object.entries(initial));
  const log: string[] = [];
  const objects: ObjectStorage = {
    async put(bucket, key, body) {
      log.push(`put ${bucket}/${key}`);
      store.set(key, body);
    },
    async get(_bucket, key) {
      return store.get(key);
    },
    async delete(bucket, key) {
      log.push(`delete ${bucket}/${key}`);
      store.delete(key);
    },
  };
  return { objects, store, log };
}

/** A merchant zip built as a client would upload it. */
function merchantZip(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Every file of a zip, by path. */
async function filesOf(zip: Buffer): Promise<Record<string, string>> {
  const opened = await openZipPackage(zip, FUNCTION_PACKAGE_LIMITS);
  const files: Record<string, string> = {};
  for (const file of opened.files) files[file.path] = (await opened.read(file)).toString('utf8');
  return files;
}

const ref = { accountId: 'XG5908XMX3MH', mode: 'live' as const, functionId: 'GBH9SKM0WYN7' };
const deployment = (extra: Partial<FunctionDeployment> = {}): FunctionDeployment => ({
  ...ref,
  runtime: 'nodejs22.x',
  handler: 'src/api.main',
  timeoutSeconds: 30,
  memoryMb: 256,
  codeKey: 'uploads/XG5908XMX3MH/live/GBH9SKM0WYN7/U1.zip',
  deploymentId: 'D1',
  environment: { CARRIER_KEY: 'ck_93b1', REGION: 'eu' },
  settingsOnly: false,
  ...extra,
});
const target = (runtime: FunctionRuntime = 'nodejs22.x'): InvokeTarget => {
  const { environment: _environment, settingsOnly: _settingsOnly, ...settings } = deployment({ runtime });
  return { ...settings, environment: async () => ({}) };
};

async function runner(options: Partial<LambdaFunctionsOptions> = {}) {
  const upload = await merchantZip({ 'src/api.js': 'exports.main = async () => ({ statusCode: 200 });', 'package.json': '{}', 'lib/util.js': 'module.exports = 1;' });
  const bucket = memoryObjects({ 'uploads/XG5908XMX3MH/live/GBH9SKM0WYN7/U1.zip': upload });
  const functions = lambdaFunctions({
    region: 'eu-west-1',
    executionRoleArn: ROLE,
    namePrefix: 'cwfn-test',
    objects: bucket.objects,
    codeBucket: 'functions-bucket',
    waits: { minDelay: 0.001, maxDelay: 0.002, maxWaitTime: 2 },
    notReadyPauseMs: 5,
    ...options,
  });
  return { functions, ...bucket };
}

const commandNames = () => lambda.calls().map((call) => (call.args[0] as { constructor: { name: string } }).constructor.name.replace(/Command$/, ''));

describe('naming', () => {
  it('names the function from prefix, mode, account and function, within 64 characters at the longest prefix', () => {
    expect(lambdaFunctionName('cwfn-test', ref)).toBe(NAME);
    expect(lambdaFunctionName('p'.repeat(MAX_FUNCTIONS_PREFIX_LENGTH), ref)).toHaveLength(64);
    expect(() => lambdaFunctions({ region: 'x', executionRoleArn: ROLE, namePrefix: 'p'.repeat(MAX_FUNCTIONS_PREFIX_LENGTH + 1), objects: memoryObjects().objects, codeBucket: 'b' })).toThrow(/at most/);
  });

  it('finds the wrapper files in the source tree (a bundle finds its own copy beside it)', () => {
    expect(wrapperDirectory()).toMatch(/shared\/platform\/function-wrapper\/$/);
  });
});

describe('deploy', () => {
  beforeEach(() => lambda.reset());

  it('creates a missing function from a staged package: merchant files, the wrapper and handler.json, then waits until it is active', async () => {
    lambda.on(GetFunctionCommand).rejectsOnce(notFound()).resolvesOnce({ Configuration: { State: 'Pending' } }).resolves(active());
    lambda.on(CreateFunctionCommand).resolves({ FunctionName: NAME, State: 'Pending' });
    const { functions, store, log } = await runner();
    let staged: Buffer | undefined;
    lambda.on(CreateFunctionCommand).callsFake(() => {
      staged = store.get(stagedPackageKey(ref, 'D1'));
      return { FunctionName: NAME, State: 'Pending' };
    });

    expect(await functions.deploy(deployment())).toEqual({ ok: true });

    expect(commandNames()).toEqual(['GetFunction', 'CreateFunction', 'GetFunction', 'GetFunction']);
    const input = lambda.commandCalls(CreateFunctionCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      FunctionName: NAME,
      Runtime: 'nodejs22.x',
      Handler: '__cartwheel__/index.handler',
      Role: ROLE,
      MemorySize: 256,
      Timeout: 30,
      Environment: { Variables: { CARRIER_KEY: 'ck_93b1', REGION: 'eu' } },
      Code: { S3Bucket: 'functions-bucket', S3Key: 'deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D1/package.zip' },
      Tags: { 'cartwheel:account': 'XG5908XMX3MH', 'cartwheel:function': 'GBH9SKM0WYN7', 'cartwheel:mode': 'live', 'cartwheel:platform': 'cwfn-test' },
    });
    expect(input.VpcConfig).toBeUndefined();

    const files = await filesOf(staged!);
    expect(Object.keys(files).sort()).toEqual(['__cartwheel__/handler.json', '__cartwheel__/index.cjs', 'lib/util.js', 'package.json', 'src/api.js']);
    expect(JSON.parse(files['__cartwheel__/handler.json']!)).toEqual({ handler: 'src/api.main' });
    expect(files['src/api.js']).toContain('exports.main');
    // Staged, handed over, and deleted once Lambda serves its own copy.
    expect(log).toEqual(['put functions/deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D1/package.zip', 'delete functions/deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D1/package.zip']);
  });

  it('packages the Python wrapper for Python, and no wrapper (the merchant handler as it is) for Java and .NET', async () => {
    const captured: Record<string, Buffer> = {};
    const inputs: Record<string, { Handler?: string }> = {};
    const { functions, store } = await runner();
    const create = async (extra: Partial<FunctionDeployment>) => {
      lambda.reset();
      lambda.on(GetFunctionCommand).rejectsOnce(notFound()).resolves(active());
      lambda.on(CreateFunctionCommand).callsFake((input: { Code: { S3Key: string }; Runtime: string; Handler: string }) => {
        captured[input.Runtime] = store.get(input.Code.S3Key)!;
        inputs[input.Runtime] = input;
        return {};
      });
      expect(await functions.deploy(deployment(extra))).toEqual({ ok: true });
    };
    await create({ runtime: 'python3.13', handler: 'app/routes.quote', deploymentId: 'P1' });
    await create({ runtime: 'java21', handler: 'com.example.Quotes::handle', deploymentId: 'J1' });

    const [python, java] = [inputs['python3.13'], inputs.java21];
    expect(python!.Handler).toBe('__cartwheel__/cartwheel_wrapper.handler');
    expect(java!.Handler).toBe('com.example.Quotes::handle');
    expect(Object.keys(await filesOf(captured['python3.13']!))).toContain('__cartwheel__/cartwheel_wrapper.py');
    const javaFiles = await filesOf(captured.java21!);
    expect(Object.keys(javaFiles).filter((file) => file.startsWith('__cartwheel__/'))).toEqual(['__cartwheel__/handler.json']);
  });

  it('updates an existing function: new code, wait, configuration, wait', async () => {
    lambda
      .on(GetFunctionCommand)
      .resolvesOnce(active())
      .resolvesOnce(active({ LastUpdateStatus: 'InProgress' }))
      .resolvesOnce(active())
      .resolvesOnce(active({ LastUpdateStatus: 'InProgress' }))
      .resolves(active());
    lambda.on(UpdateFunctionCodeCommand).resolves({});
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    const { functions, log } = await runner();

    expect(await functions.deploy(deployment({ deploymentId: 'D2', memoryMb: 512 }))).toEqual({ ok: true });

    expect(commandNames()).toEqual(['GetFunction', 'UpdateFunctionCode', 'GetFunction', 'GetFunction', 'UpdateFunctionConfiguration', 'GetFunction', 'GetFunction']);
    expect(lambda.commandCalls(UpdateFunctionCodeCommand)[0]!.args[0].input).toEqual({ FunctionName: NAME, S3Bucket: 'functions-bucket', S3Key: 'deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D2/package.zip' });
    expect(lambda.commandCalls(UpdateFunctionConfigurationCommand)[0]!.args[0].input).toEqual({
      FunctionName: NAME,
      Runtime: 'nodejs22.x',
      Handler: '__cartwheel__/index.handler',
      Role: ROLE,
      MemorySize: 512,
      Timeout: 30,
      Environment: { Variables: { CARRIER_KEY: 'ck_93b1', REGION: 'eu' } },
    });
    expect(log).toEqual(['put functions/deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D2/package.zip', 'delete functions/deployed/XG5908XMX3MH/live/GBH9SKM0WYN7/D2/package.zip']);
  });

  it('settingsOnly: configuration only, no package and no code update', async () => {
    lambda.on(GetFunctionCommand).resolves(active());
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    const { functions, log } = await runner();
    expect(await functions.deploy(deployment({ deploymentId: 'D3', settingsOnly: true, environment: { REGION: 'us' } }))).toEqual({ ok: true });
    expect(commandNames()).toEqual(['GetFunction', 'UpdateFunctionConfiguration', 'GetFunction']);
    expect(log).toEqual([]);
  });

  it('settingsOnly for a function that does not exist yet creates it with its code', async () => {
    lambda.on(GetFunctionCommand).rejectsOnce(notFound()).resolves(active());
    lambda.on(CreateFunctionCommand).resolves({});
    const { functions } = await runner();
    expect(await functions.deploy(deployment({ settingsOnly: true }))).toEqual({ ok: true });
    expect(lambda.commandCalls(CreateFunctionCommand)[0]!.args[0].input.Code?.S3Key).toBe(stagedPackageKey(ref, 'D1'));
  });

  it('waits out an update in progress (ResourceConflictException) and sends again', async () => {
    lambda.on(GetFunctionCommand).resolves(active());
    lambda.on(UpdateFunctionCodeCommand).rejectsOnce(conflict()).resolves({});
    lambda.on(UpdateFunctionConfigurationCommand).rejectsOnce(conflict()).resolves({});
    const { functions } = await runner();
    expect(await functions.deploy(deployment())).toEqual({ ok: true });
    expect(lambda.commandCalls(UpdateFunctionCodeCommand)).toHaveLength(2);
    expect(lambda.commandCalls(UpdateFunctionConfigurationCommand)).toHaveLength(2);
  });

  it('stages each deployment under its own key, and a repeat of one deployment writes the same bytes', async () => {
    lambda.on(GetFunctionCommand).resolves(active());
    const { functions, store } = await runner();
    const staged: Record<string, Buffer[]> = {};
    lambda.on(UpdateFunctionCodeCommand).callsFake((input: { S3Key: string }) => {
      (staged[input.S3Key] ??= []).push(store.get(input.S3Key)!);
      return {};
    });
    await functions.deploy(deployment({ deploymentId: 'D1' }));
    await functions.deploy(deployment({ deploymentId: 'D1' }));
    await functions.deploy(deployment({ deploymentId: 'D2' }));
    expect(Object.keys(staged)).toEqual([stagedPackageKey(ref, 'D1'), stagedPackageKey(ref, 'D2')]);
    expect(staged[stagedPackageKey(ref, 'D1')]![0]!.equals(staged[stagedPackageKey(ref, 'D1')]![1]!)).toBe(true);
  });

  it('answers {ok: false} with the reason when Lambda refuses the code or the update ends Failed', async () => {
    lambda.on(GetFunctionCommand).rejectsOnce(notFound());
    lambda.on(CreateFunctionCommand).rejects(new InvalidParameterValueException({ message: 'Unzipped size must be smaller than 262144000 bytes', $metadata: {} }));
    const { functions } = await runner();
    expect(await functions.deploy(deployment())).toEqual({ ok: false, message: 'Unzipped size must be smaller than 262144000 bytes' });

    lambda.reset();
    lambda
      .on(GetFunctionCommand)
      .resolvesOnce(active())
      .resolves(active({ LastUpdateStatus: 'Failed', LastUpdateStatusReason: 'Unable to unzip the package', LastUpdateStatusReasonCode: 'InvalidZipFileException' }));
    lambda.on(UpdateFunctionCodeCommand).resolves({});
    expect(await functions.deploy(deployment())).toEqual({ ok: false, message: 'Unable to unzip the package (InvalidZipFileException)' });
    expect(lambda.commandCalls(UpdateFunctionConfigurationCommand)).toHaveLength(0);

    lambda.reset();
    lambda.on(GetFunctionCommand).rejectsOnce(notFound()).resolves({ Configuration: { State: 'Failed', StateReason: 'The runtime failed to start', StateReasonCode: 'InvalidRuntime' } });
    lambda.on(CreateFunctionCommand).resolves({});
    expect(await functions.deploy(deployment())).toEqual({ ok: false, message: 'The runtime failed to start (InvalidRuntime)' });
  });

  it('answers {ok: false} for an upload that is missing or not a zip', async () => {
    lambda.on(GetFunctionCommand).rejects(notFound());
    const { functions, store } = await runner();
    store.set('bad.zip', Buffer.from('not a zip'));
    expect(await functions.deploy(deployment({ codeKey: 'bad.zip' }))).toMatchObject({ ok: false, message: expect.stringMatching(/zip|read/i) });
    expect(await functions.deploy(deployment({ codeKey: 'gone.zip' }))).toMatchObject({ ok: false, message: expect.stringMatching(/missing/) });
    // A file whose bytes do not match its checksum is found only while it is copied into the package.
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('exports.main = 1; // MARKER'), 'src/api.js', { compress: false });
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const corrupt = Buffer.concat(chunks);
    corrupt.write('X', corrupt.indexOf('MARKER'));
    store.set('corrupt.zip', corrupt);
    expect(await functions.deploy(deployment({ codeKey: 'corrupt.zip' }))).toMatchObject({ ok: false, message: expect.stringMatching(/checksum/) });
    expect(lambda.commandCalls(CreateFunctionCommand)).toHaveLength(0);
  });

  it('throws on transient failures so due work repeats the deployment: throttling, 5xx, a role not yet assumable, a wait that ran out', async () => {
    const { functions } = await runner({ waits: { minDelay: 0.01, maxDelay: 0.01, maxWaitTime: 0.05 } });
    lambda.on(GetFunctionCommand).rejects(throttled());
    await expect(functions.deploy(deployment())).rejects.toThrow(/Rate exceeded/);

    lambda.reset();
    lambda.on(GetFunctionCommand).resolves(active());
    lambda.on(UpdateFunctionCodeCommand).rejects(new ServiceException({ message: 'Internal failure', $metadata: { httpStatusCode: 500 } }));
    await expect(functions.deploy(deployment())).rejects.toThrow(/Internal failure/);

    lambda.reset();
    lambda.on(GetFunctionCommand).rejectsOnce(notFound());
    lambda.on(CreateFunctionCommand).rejects(new InvalidParameterValueException({ message: 'The role defined for the function cannot be assumed by Lambda.', $metadata: {} }));
    await expect(functions.deploy(deployment())).rejects.toThrow(/cannot be assumed/);

    lambda.reset();
    lambda.on(GetFunctionCommand).resolvesOnce(active()).resolves(active({ LastUpdateStatus: 'InProgress' }));
    lambda.on(UpdateFunctionCodeCommand).resolves({});
    await expect(functions.deploy(deployment())).rejects.toThrow(/timed out/);
  });

  it('makes a function whose creation failed again instead of updating it', async () => {
    lambda.on(GetFunctionCommand).resolvesOnce({ Configuration: { State: 'Failed' } }).resolves(active());
    lambda.on(DeleteFunctionCommand).resolves({});
    lambda.on(CreateFunctionCommand).resolves({});
    const { functions } = await runner();
    expect(await functions.deploy(deployment())).toEqual({ ok: true });
    expect(commandNames().slice(0, 3)).toEqual(['GetFunction', 'DeleteFunction', 'CreateFunction']);
  });
});

describe('remove', () => {
  beforeEach(() => lambda.reset());

  it('deletes the function; one already gone is fine, so removing twice is too', async () => {
    lambda.on(DeleteFunctionCommand).resolvesOnce({}).rejects(notFound());
    const { functions } = await runner();
    await functions.remove(ref);
    await functions.remove(ref);
    expect(lambda.commandCalls(DeleteFunctionCommand).map((call) => call.args[0].input)).toEqual([{ FunctionName: NAME }, { FunctionName: NAME }]);
  });

  it('passes other failures on', async () => {
    lambda.on(DeleteFunctionCommand).rejects(throttled());
    const { functions } = await runner();
    await expect(functions.remove(ref)).rejects.toThrow(/Rate exceeded/);
  });
});

describe('invoke', () => {
  beforeEach(() => lambda.reset());
  const payload = (value: unknown) => Uint8ArrayBlobAdapter.fromString(JSON.stringify(value));
  const unhandled = (errorType: string, errorMessage: string) => ({ FunctionError: 'Unhandled', Payload: payload({ errorType, errorMessage, trace: [] }) });
  const event = { httpMethod: 'GET', path: '/func/v1/GBH9SKM0WYN7', headers: {}, body: '' };

  it('calls the function synchronously with the event and answers what the wrapper reports', async () => {
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 200, Payload: payload({ __cartwheel__: { kind: 'returned', value: { statusCode: 201, body: 'ok' } } }) })
      .resolvesOnce({ StatusCode: 200, Payload: payload({ __cartwheel__: { kind: 'error', errorType: 'ValueError', errorMessage: 'country required' } }) });
    const { functions } = await runner();
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'returned', value: { statusCode: 201, body: 'ok' } });
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'error', errorType: 'ValueError', errorMessage: 'country required' });
    const input = lambda.commandCalls(InvokeCommand)[0]!.args[0].input;
    expect(input.FunctionName).toBe(NAME);
    expect(input.InvocationType).toBe('RequestResponse');
    expect(JSON.parse(Buffer.from(input.Payload as Uint8Array).toString())).toEqual(event);
  });

  it('maps each answer of Lambda to an outcome', () => {
    const wrapped = (answer: unknown) => outcomeOf('nodejs22.x', undefined, payload({ __cartwheel__: answer }));
    expect(wrapped({ kind: 'returned' })).toEqual({ kind: 'returned', value: undefined });
    expect(wrapped({ kind: 'error', errorType: 'ValueError', errorMessage: 'country required' })).toEqual({ kind: 'error', errorType: 'ValueError', errorMessage: 'country required' });
    expect(outcomeOf('python3.13', undefined, payload({ statusCode: 200 }))).toEqual({ kind: 'crashed', message: 'The platform wrapper did not answer.' });
    const failed = (errorType: string, message: string, runtime: FunctionRuntime = 'nodejs22.x') => {
      const { FunctionError, Payload } = unhandled(errorType, message);
      return outcomeOf(runtime, FunctionError, Payload);
    };
    expect(failed('Sandbox.Timedout', 'Task timed out after 30.00 seconds')).toEqual({ kind: 'timeout' });
    expect(outcomeOf('nodejs22.x', 'Unhandled', payload({ errorMessage: '2026-11-28T00:00:00.000Z abc Task timed out after 3.00 seconds' }))).toEqual({ kind: 'timeout' });
    expect(failed('Runtime.OutOfMemory', 'Runtime exited with error: signal: killed')).toEqual({ kind: 'out_of_memory' });
    expect(failed('Runtime.ExitError', 'Runtime exited with error: exit status 1')).toEqual({ kind: 'crashed', message: 'Runtime exited with error: exit status 1' });
    expect(failed('Runtime.ImportModuleError', "Cannot find module 'index'")).toEqual({ kind: 'crashed', message: "Cannot find module 'index'" });
    // Java and .NET run without a wrapper: a thrown exception is the error, a plain payload is the value.
    expect(failed('java.lang.IllegalArgumentException', 'country required', 'java21')).toEqual({ kind: 'error', errorType: 'java.lang.IllegalArgumentException', errorMessage: 'country required' });
    expect(outcomeOf('dotnet8', undefined, payload({ statusCode: 200, body: 'hi' }))).toEqual({ kind: 'returned', value: { statusCode: 200, body: 'hi' } });
    expect(outcomeOf('java21', undefined, undefined)).toEqual({ kind: 'returned', value: undefined });
    expect(outcomeOf('java21', undefined, new Uint8Array(Buffer.from('{not json')))).toMatchObject({ kind: 'crashed' });
  });

  it('answers throttled, never a rejection, when Lambda throttles (TooManyRequestsException) or answers 429', async () => {
    lambda.on(InvokeCommand).rejectsOnce(throttled()).rejectsOnce(Object.assign(new Error('Slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } }));
    const { functions } = await runner();
    await expect(functions.invoke(target(), event)).resolves.toEqual({ kind: 'throttled' });
    await expect(functions.invoke(target(), event)).resolves.toEqual({ kind: 'throttled' });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(2);
  });

  it('answers not_found for a function Lambda does not have', async () => {
    lambda.on(InvokeCommand).rejects(notFound());
    const { functions } = await runner();
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'not_found' });
  });

  it('retries a function still Pending or being restored after a short pause, and answers throttled when it stays so', async () => {
    const pending = () => new ResourceConflictException({ message: 'The function is currently in the following state: Pending', $metadata: { httpStatusCode: 409 } });
    const inactive = () => new ResourceNotReadyException({ message: 'Functions is inactive and is being restored', $metadata: { httpStatusCode: 502 } });
    lambda.on(InvokeCommand).rejectsOnce(pending()).rejectsOnce(inactive()).resolves({ Payload: payload({ __cartwheel__: { kind: 'returned', value: 'late' } }) });
    const { functions } = await runner();
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'returned', value: 'late' });
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(3);
    // The invoke-only role cannot read the function: no GetFunction, no waiter.
    expect(lambda.commandCalls(GetFunctionCommand)).toHaveLength(0);

    lambda.reset();
    lambda.on(InvokeCommand).rejects(inactive());
    const slow = await runner({ notReadyPauseMs: 20, notReadyBudgetMs: 200 });
    const started = Date.now();
    expect(await slow.functions.invoke(target(), event)).toEqual({ kind: 'throttled' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(lambda.commandCalls(InvokeCommand).length).toBeGreaterThan(2);
  });

  it('serves while an update is in progress: nothing waits for the update (Lambda answers with the old code)', async () => {
    lambda.on(GetFunctionCommand).resolves(active({ LastUpdateStatus: 'InProgress' }));
    lambda.on(InvokeCommand).resolves({ Payload: payload({ __cartwheel__: { kind: 'returned', value: 'old code' } }) });
    lambda.on(UpdateFunctionCodeCommand).resolves({});
    const { functions } = await runner({ waits: { minDelay: 0.05, maxDelay: 0.05, maxWaitTime: 0.3 } });
    const deploying = functions.deploy(deployment({ deploymentId: 'D9' })).catch(() => 'wait ran out');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'returned', value: 'old code' });
    expect(await deploying).toBe('wait ran out');
  });

  it('answers timeout when the call outlasts the router’s limit, or the request is aborted', async () => {
    lambda.on(InvokeCommand).callsFake(() => new Promise(() => {}));
    const { functions } = await runner({ invokeTimeoutMs: 30 });
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'timeout' });
    lambda.reset();
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'timeout' });
  });

  it('answers crashed with the reason when the function cannot start or the service fails', async () => {
    lambda
      .on(InvokeCommand)
      .rejectsOnce(Object.assign(new Error('Lambda was unable to decrypt the environment variables'), { name: 'KMSAccessDeniedException' }))
      .rejectsOnce(new ServiceException({ message: 'Internal failure', $metadata: { httpStatusCode: 500 } }));
    const { functions } = await runner();
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'crashed', message: expect.stringContaining('KMSAccessDeniedException') });
    expect(await functions.invoke(target(), event)).toEqual({ kind: 'crashed', message: expect.stringContaining('Internal failure') });
  });
});
