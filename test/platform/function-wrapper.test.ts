/**
 * The platform wrapper as the cloud package uses it (functions.md §10): copied under
 * `__cartwheel__/` next to the merchant's code with a `handler.json`, its entry answers
 * `{ "__cartwheel__": <result> }` (shared/platform/function-wrapper/README.md).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const wrapperDir = fileURLToPath(new URL('../../shared/platform/function-wrapper/', import.meta.url));
const require = createRequire(import.meta.url);
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A package as the cloud deploys it: the merchant's files plus the wrapper and handler.json. */
function packaged(files: Record<string, string>, handler: string, wrapperFile: string, as: string): string {
  const root = mkdtempSync(join(tmpdir(), 'cartwheel-wrapper-'));
  folders.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  mkdirSync(join(root, '__cartwheel__'));
  copyFileSync(join(wrapperDir, wrapperFile), join(root, '__cartwheel__', as));
  writeFileSync(join(root, '__cartwheel__', 'handler.json'), JSON.stringify({ handler }));
  return root;
}

type Entry = (event: unknown, context: Record<string, unknown>) => Promise<unknown>;

describe('Node.js entry (__cartwheel__/index.handler)', () => {
  it('answers the merchant result wrapped, and sets callbackWaitsForEmptyEventLoop to false', async () => {
    // A merchant "type": "module" package must not turn the .cjs wrapper into an ES module.
    const root = packaged({ 'package.json': '{"type":"module"}', 'index.js': 'export const handler = async (event) => ({ statusCode: 200, body: event.body });' }, 'index.handler', 'node/index.cjs', 'index.cjs');
    const entry = require(join(root, '__cartwheel__', 'index.cjs')) as { handler: Entry };
    const context: Record<string, unknown> = { callbackWaitsForEmptyEventLoop: true };
    expect(await entry.handler({ body: 'hi' }, context)).toEqual({ __cartwheel__: { kind: 'returned', value: { statusCode: 200, body: 'hi' } } });
    expect(context.callbackWaitsForEmptyEventLoop).toBe(false);
  });

  it('turns merchant errors and load failures into structured failures', async () => {
    const failing = packaged({ 'src/api.cjs': 'exports.main = (e, c, callback) => callback(new TypeError("nope"));' }, 'src/api.main', 'node/index.cjs', 'index.cjs');
    const entry = require(join(failing, '__cartwheel__', 'index.cjs')) as { handler: Entry };
    expect(await entry.handler({}, {})).toEqual({ __cartwheel__: { kind: 'error', errorType: 'TypeError', errorMessage: 'nope' } });
    const missing = packaged({ 'index.js': 'exports.other = () => 1;' }, 'index.handler', 'node/index.cjs', 'index.cjs');
    const broken = require(join(missing, '__cartwheel__', 'index.cjs')) as { handler: Entry };
    expect(await broken.handler({}, {})).toEqual({ __cartwheel__: { kind: 'error', errorType: 'Runtime.ImportModuleError', errorMessage: 'index.js does not export a function named "handler"' } });
  });

  it('runHandler: a promise resolving to undefined has no value; the first settlement wins', async () => {
    const { runHandler } = require(join(wrapperDir, 'node', 'index.cjs')) as { runHandler(fn: unknown, event: unknown, context: unknown): Promise<unknown> };
    const nothing = await runHandler(async () => undefined, {}, {});
    expect(nothing).toEqual({ kind: 'returned' });
    expect('value' in (nothing as object)).toBe(false);
    expect(await runHandler((_e: unknown, _c: unknown, callback: (error: unknown, value?: unknown) => void) => {
      callback(null, 1);
      callback(new Error('second'));
      throw new Error('third');
    }, {}, {})).toEqual({ kind: 'returned', value: 1 });
  });
});

describe('Python entry (__cartwheel__/cartwheel_wrapper.handler)', () => {
  const run = (root: string, event: unknown) =>
    JSON.parse(
      execFileSync('python3', ['-c', 'import json, sys; sys.path.insert(0, sys.argv[1]); import cartwheel_wrapper as w; print(json.dumps(w.handler(json.loads(sys.argv[2]), None)))', join(root, '__cartwheel__'), JSON.stringify(event)], { encoding: 'utf8' }),
    );

  it('answers results, awaited coroutines and exceptions wrapped', () => {
    const root = packaged(
      {
        'app/__init__.py': '',
        'app/routes.py': 'async def quote(event, context):\n    if event.get("fail"):\n        raise ValueError("country required")\n    return {"statusCode": 200, "body": "ok"}\n',
      },
      'app/routes.quote',
      'python/cartwheel_wrapper.py',
      'cartwheel_wrapper.py',
    );
    expect(run(root, {})).toEqual({ __cartwheel__: { kind: 'returned', value: { statusCode: 200, body: 'ok' } } });
    expect(run(root, { fail: true })).toEqual({ __cartwheel__: { kind: 'error', errorType: 'ValueError', errorMessage: 'country required' } });
  });

  it('a handler that cannot be imported is Runtime.ImportModuleError', () => {
    const root = packaged({ 'main.py': 'def other(event, context):\n    return None\n' }, 'main.handler', 'python/cartwheel_wrapper.py', 'cartwheel_wrapper.py');
    expect(run(root, {})).toMatchObject({ __cartwheel__: { kind: 'error', errorType: 'Runtime.ImportModuleError' } });
  });
});
