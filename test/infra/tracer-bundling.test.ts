/**
 * Tracing off (the default) costs a cold start nothing: the stack leaves the Powertools Tracer
 * out of every bundle (an external module shared/core/tracing.ts never reaches), and bundles it
 * only with context `tracing=true`. Checked on the bundling options and on a real esbuild bundle
 * built with them, which must start with tracing off.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundlingFor, TRACER_PACKAGE } from '../../infra/cloud/platform-function';

const root = resolve(import.meta.dirname, '../..');
const workDir = mkdtempSync(join(root, '.test-tracer-bundle-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** A bundle of a function making an SDK client through `traced()`, with the stack's externals for `tracing`. */
async function bundle(tracing: boolean): Promise<string> {
  const entry = join(workDir, 'entry.ts');
  writeFileSync(entry, `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { traced } from ${JSON.stringify(join(root, 'shared/core/tracing.ts'))};\nconst client = traced(new DynamoDBClient({ region: 'us-east-1' }));\nexport const region = await client.config.region();\n`);
  const outfile = join(workDir, tracing ? 'on' : 'off', 'index.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    external: bundlingFor([], false, false, tracing).externalModules,
    logLevel: 'error',
  });
  return outfile;
}

describe('the Tracer in function bundles', () => {
  it('is an external module with tracing off and bundled with tracing on, whatever else the function ships', () => {
    expect(bundlingFor([], false, false, false).externalModules).toContain(TRACER_PACKAGE);
    expect(bundlingFor([], false, false, true).externalModules).not.toContain(TRACER_PACKAGE);
    expect(bundlingFor([], true, true, false).externalModules).toContain(TRACER_PACKAGE);
    expect(bundlingFor([], true, true, true).externalModules).not.toContain(TRACER_PACKAGE);
  });

  it('leaves neither the Tracer nor the X-Ray SDK in a tracing-off bundle, which starts without them', async () => {
    const [off, on] = [await bundle(false), await bundle(true)];
    const offText = readFileSync(off, 'utf8');
    expect(offText).not.toMatch(/aws-xray-sdk|POWERTOOLS_TRACER_CAPTURE_RESPONSE/);
    expect(offText).toContain(`import("${TRACER_PACKAGE}")`);
    expect(readFileSync(on, 'utf8')).toMatch(/aws-xray-sdk/);
    // Started as Lambda would with tracing off: the Tracer's import is never evaluated.
    const started = spawnSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(off)}); process.stdout.write(m.region);`], {
      cwd: workDir,
      encoding: 'utf8',
      env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'test', POWERTOOLS_TRACE_ENABLED: 'false' },
    });
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe('us-east-1');
  }, 60_000);
});
