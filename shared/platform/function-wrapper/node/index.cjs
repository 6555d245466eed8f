'use strict';
/**
 * The platform wrapper for Node.js hosted functions (functions.md §7.3, §10 "Platform wrapper").
 *
 * One file, CommonJS, no dependencies: the cloud package copies it into the merchant's zip as
 * `__cartwheel__/index.cjs` (`.cjs`, so a merchant `"type": "module"` package.json cannot turn it
 * into an ES module) and configures `__cartwheel__/index.handler`; the local runner's child
 * (infra/local/functions/node-child.cjs) uses `loadHandler` and `runHandler` from it. Both
 * therefore settle a call by exactly the same rules.
 *
 * A call ends in a result object, never a thrown error:
 *   { kind: 'returned', value? }                    (no `value` when the handler gave undefined)
 *   { kind: 'error', errorType, errorMessage }      (no stack trace, ever)
 */
const fs = require('node:fs');
const path = require('node:path');
const url = require('node:url');

/** Error name for a value the handler failed with: the error's name or class, else `Error`. */
function errorTypeOf(error) {
  if (error instanceof Error || (error && typeof error === 'object' && typeof error.message === 'string')) {
    // `class QuoteError extends Error {}` keeps the inherited name `Error`: its class says more.
    if (typeof error.name === 'string' && error.name && error.name !== 'Error') return error.name;
    const ctor = error.constructor && error.constructor.name;
    if (typeof ctor === 'string' && ctor) return ctor;
  }
  return 'Error';
}

/** Message for a value the handler failed with (a string or anything else is stringified). */
function errorMessageOf(error) {
  if (error && typeof error === 'object' && typeof error.message === 'string') return error.message;
  try {
    return String(error);
  } catch {
    return 'Unknown error';
  }
}

/** The structured failure for `error`. */
function failure(error, errorType) {
  return { kind: 'error', errorType: errorType || errorTypeOf(error), errorMessage: errorMessageOf(error) };
}

/**
 * Calls `fn(event, context, callback)` and resolves with how it settled first: the callback,
 * the returned promise, or a synchronous throw; later settlements are ignored. A handler that
 * returns a non-promise keeps the call open until the callback runs (timeouts are the caller's).
 */
function runHandler(fn, event, context) {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const returned = (value) => settle(value === undefined ? { kind: 'returned' } : { kind: 'returned', value });
    const callback = (error, success) => {
      if (error !== null && error !== undefined) settle(failure(error));
      else returned(success);
    };
    let outcome;
    try {
      outcome = fn(event, context, callback);
    } catch (error) {
      settle(failure(error));
      return;
    }
    if (outcome && typeof outcome.then === 'function') {
      outcome.then(returned, (error) => settle(failure(error)));
    }
  });
}

/** Splits `src/api.main` at its last dot: the file path without extension and the export. */
function parseHandler(handlerName) {
  const dot = String(handlerName).lastIndexOf('.');
  if (dot <= 0 || dot === handlerName.length - 1) throw new Error(`Bad handler "${handlerName}": expected <file path without extension>.<exported function>`);
  return { file: handlerName.slice(0, dot), name: handlerName.slice(dot + 1) };
}

/** Whether a `.js` file is an ES module: the nearest package.json (inside `codeDir`) says `"type": "module"`. */
function isEsmJs(file, codeDir) {
  const root = path.resolve(codeDir);
  let dir = path.dirname(file);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        return JSON.parse(fs.readFileSync(manifest, 'utf8')).type === 'module';
      } catch {
        return false;
      }
    }
    if (dir === root || !dir.startsWith(root + path.sep)) return false;
    dir = path.dirname(dir);
  }
}

/**
 * Loads the function named by `handlerName` (`index.handler`, `src/api.main`) from `codeDir`:
 * tries `<path>.js`, `.mjs`, `.cjs` in that order; CommonJS through `require`, ES modules
 * through `import()`. Rejects with a clear message when the file or the export is missing.
 */
async function loadHandler(codeDir, handlerName) {
  const { file, name } = parseHandler(handlerName);
  const base = path.resolve(codeDir, file);
  const found = ['.js', '.mjs', '.cjs'].map((ext) => base + ext).find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`Cannot find the handler file ${file}.js, ${file}.mjs or ${file}.cjs`);
  const esm = found.endsWith('.mjs') || (found.endsWith('.js') && isEsmJs(found, codeDir));
  const loaded = esm ? await import(url.pathToFileURL(found).href) : require(found);
  let fn = loaded ? loaded[name] : undefined;
  // A CommonJS module imported as ESM puts its exports on `default`.
  if (typeof fn !== 'function' && esm && loaded && loaded.default && typeof loaded.default[name] === 'function') fn = loaded.default[name];
  if (typeof fn !== 'function') throw new Error(`${path.basename(found)} does not export a function named "${name}"`);
  return fn;
}

/** The loaded merchant handler, once per execution environment. */
let loading;

/** Reads `handler.json` next to this file and loads the merchant's handler from the parent folder. */
function loadConfigured() {
  loading ??= (async () => {
    const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'handler.json'), 'utf8'));
    return loadHandler(path.dirname(__dirname), config.handler);
  })();
  return loading;
}

/**
 * The cloud entry (`__cartwheel__/index.handler`): answers `{ "__cartwheel__": <result> }`, so a
 * merchant error is a structured failure the router recognises rather than a Lambda FunctionError.
 */
async function handler(event, context) {
  if (context) context.callbackWaitsForEmptyEventLoop = false;
  let fn;
  try {
    fn = await loadConfigured();
  } catch (error) {
    loading = undefined;
    return { __cartwheel__: failure(error, 'Runtime.ImportModuleError') };
  }
  return { __cartwheel__: await runHandler(fn, event, context) };
}

module.exports = { runHandler, loadHandler, handler };
