/**
 * Helpers for the local function runner's tests and benchmark: zips of the example folders
 * (examples/functions/), an in-memory `functions` bucket, and deployments and events to match.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';
import type { FunctionDeployment, FunctionRuntime, InvokeTarget, ObjectStorage } from '../../../shared/platform/ports';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The folder of an example function. */
export function exampleDir(name: string): string {
  return join(repo, 'examples', 'functions', name);
}

/** The Node 22 binary shipped in node_modules (the tests' own process may be an older Node). */
export const node22 = realpathSync(join(repo, 'node_modules', '.bin', 'node'));

/** A zip of every file under `dir` (paths relative to it), or of `files` given inline. */
export function zipFolder(dir: string | undefined, files: Record<string, string> = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else zip.addBuffer(readFileSync(path), relative(dir!, path));
    }
  };
  if (dir) walk(dir);
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), path);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** An in-memory object store. */
export function memoryObjects(): ObjectStorage & { stored: Map<string, Buffer> } {
  const stored = new Map<string, Buffer>();
  return {
    stored,
    put: async (bucket, key, body) => void stored.set(`${bucket}/${key}`, body),
    get: async (bucket, key) => stored.get(`${bucket}/${key}`),
    delete: async (bucket, key) => void stored.delete(`${bucket}/${key}`),
  };
}

/** A temporary data directory (the runner's folder is its `functions`); remove it with `cleanup`. */
export function tempDataDir(): { root: string; functions: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'cartwheel-fn-'));
  return { root, functions: join(root, 'functions'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

let sequence = 0;

/** What a deployment needs beyond the defaults. */
export interface DeploymentSpec {
  functionId?: string;
  runtime?: FunctionRuntime;
  handler: string;
  codeKey: string;
  deploymentId?: string;
  timeoutSeconds?: number;
  memoryMb?: number;
  environment?: Record<string, string>;
  settingsOnly?: boolean;
}

/** A deployment with test defaults (account ACC1, test mode, 30 s, 256 MB). */
export function deploymentOf(spec: DeploymentSpec): FunctionDeployment {
  sequence += 1;
  return {
    accountId: 'ACC1',
    mode: 'test',
    functionId: spec.functionId ?? `FN${sequence}`,
    runtime: spec.runtime ?? 'nodejs22.x',
    handler: spec.handler,
    codeKey: spec.codeKey,
    deploymentId: spec.deploymentId ?? `D${sequence}`,
    timeoutSeconds: spec.timeoutSeconds ?? 30,
    memoryMb: spec.memoryMb ?? 256,
    environment: spec.environment ?? {},
    settingsOnly: spec.settingsOnly ?? false,
  };
}

/** The invoke target of a deployment; counts how often its variables were opened. */
export function targetOf(deployment: FunctionDeployment): InvokeTarget & { opened: number } {
  const { environment, settingsOnly: _settingsOnly, ...settings } = deployment;
  const target = {
    ...settings,
    opened: 0,
    environment: async () => {
      target.opened += 1;
      return environment;
    },
  };
  return target;
}

let requests = 0;

/** An event as the functions module builds it (functions.md §7.2). */
export function eventOf(body = '', method = 'POST'): Record<string, unknown> {
  requests += 1;
  return {
    httpMethod: method,
    path: '/func/v1/FN/quotes?region=eu',
    headers: { 'content-type': 'application/json', 'X-Account-Id': 'ACC1', 'X-Test': 'true', 'X-Hosted-Function-Id': 'FN' },
    queryStringParameters: { region: 'eu' },
    multiValueQueryStringParameters: { region: ['eu'] },
    body,
    isBase64Encoded: false,
    requestContext: { requestId: `REQ${requests}`, sourceIp: '127.0.0.1' },
  };
}

/** Waits until `condition` holds (polling), failing after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
