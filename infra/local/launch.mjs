/**
 * `npm start`: builds the local runtime with esbuild, as the cloud's functions are built, and runs
 * it. Loading some 360 TypeScript modules one by one through a transpiling loader was most of a
 * cold start; one build with a chunk per shared part loads in a fraction of that.
 *
 * Packages are bundled too, but for the AWS SDK and those that must load from node_modules
 * (`EXTERNAL`): a package of a hundred small modules loads far faster as one chunk.
 *
 * The build is keyed by its sources (path, size and modification time of every file under
 * shared/, handlers/ and infra/local/, and the package files), so a start after no change reuses
 * it and a start after an edit rebuilds (about a second). Each build lives in a folder of its own,
 * `.build/local/<key>/`, laid out like the repository (`infra/local/main.js`, `handlers/http/*.js`),
 * made under a temporary name and renamed into place when complete, so runtimes started at once
 * share it and a running runtime never sees its build change; the newest few are kept. V8's code
 * cache of every module loaded (`.build/compile-cache/`) spares later starts the compiling.
 *
 * Plain JavaScript on purpose: it runs before any TypeScript can.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const BUILDS = join(ROOT, '.build/local');
const SOURCE_DIRS = ['shared', 'handlers', 'infra/local'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];
const KEEP = 3;
const COMPILE_CACHE = join(ROOT, '.build/compile-cache');
/** Past this size the compile cache is emptied at the next build (entries of pruned builds stay behind). */
const COMPILE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

// V8's code cache for every module this process compiles (the build's and the packages' alike),
// kept across starts: a start after the first skips most parsing and compiling (Node 22's
// compile cache; entries are checked against the source, so a changed file is compiled anew).
// NODE_COMPILE_CACHE, when set, chooses the folder instead.
nodeModule.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ? undefined : COMPILE_CACHE);

/** Every source file's path, size and modification time, in a stable order. */
function sourceKey() {
  const hash = createHash('sha256');
  const files = [...SOURCE_FILES.map((file) => join(ROOT, file))];
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
    }
  }
  files.sort();
  for (const file of files) {
    if (!existsSync(file)) continue;
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(ROOT, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The entry points: the runtime and every handler module it loads on first use. */
function entryPoints() {
  const handlers = readdirSync(join(ROOT, 'handlers'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  return ['infra/local/main.ts', ...handlers];
}

/**
 * Packages loaded from node_modules at run time: the AWS SDK (each client is one file already, and
 * all code shares one instance of it), fauxqs (its persistence class is patched through its own
 * file, emulators.ts), dynalite (loaded with `require`, its store module shared) and native code.
 */
const EXTERNAL = /^(node:|@aws-sdk\/|@smithy\/|@aws-crypto\/|@aws\/|(fauxqs|dynalite|sharp|esbuild)(\/|$))/;

/**
 * The SDK's packages are CommonJS: imported, Node first scans each one's source for its export
 * names (tens of milliseconds for the DynamoDB client alone); required, it does not. The build
 * imports them through a module that requires them, the one instance Node's `require` holds.
 */
const SDK = /^(@aws-sdk|@smithy|@aws-crypto|@aws)\//;

/**
 * Every other package is bundled: Node loads a package of a hundred small modules (zod, the
 * Powertools, sanitize-html with postcss) far slower than the same code in a chunk.
 */
const packagesBundled = {
  name: 'packages-bundled',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (!EXTERNAL.test(args.path)) return undefined;
      // Only static imports: a dynamic import of such a module would answer its default export alone.
      if (SDK.test(args.path) && args.kind === 'import-statement') return { path: args.path, namespace: 'sdk-required' };
      return { path: args.path, external: true };
    });
    build.onLoad({ filter: /./, namespace: 'sdk-required' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/** Builds into a temporary folder and renames it to `target`; a build another start finished first wins. */
async function buildInto(target) {
  const { build } = await import('esbuild');
  const temporary = `${target}.tmp-${process.pid}-${Date.now()}`;
  const started = performance.now();
  console.log('Building the local runtime (sources changed since the last start)...');
  await build({
    absWorkingDir: ROOT,
    entryPoints: entryPoints(),
    outbase: '.',
    outdir: temporary,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    plugins: [packagesBundled],
    // Bundled CommonJS packages call `require` (Node's own modules) at run time, as in the cloud's bundles.
    banner: { js: "import { createRequire as launchCreateRequire } from 'node:module'; const require = launchCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    // Stack traces need only the mappings (the sources are in the repository): Node reads and
    // parses every loaded module's map at start-up, a fraction of the size without them.
    sourcesContent: false,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
  writeFileSync(join(temporary, 'complete'), new Date().toISOString());
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    if (!existsSync(join(target, 'complete'))) throw error;
  }
  console.log(`Built in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

/** Empties the compile cache once it outgrew its bound (checked after a build only: it costs a walk of the folder). */
function trimCompileCache() {
  if (!existsSync(COMPILE_CACHE)) return;
  let bytes = 0;
  for (const entry of readdirSync(COMPILE_CACHE, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  if (bytes > COMPILE_CACHE_MAX_BYTES) rmSync(COMPILE_CACHE, { recursive: true, force: true });
}

/** Removes all but the newest `KEEP` builds, and temporary folders of starts that died an hour ago or more. */
function prune(current) {
  const folders = readdirSync(BUILDS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && join(BUILDS, entry.name) !== current)
    .map((entry) => ({ path: join(BUILDS, entry.name), at: statSync(join(BUILDS, entry.name)).mtimeMs }));
  const hourAgo = Date.now() - 3_600_000;
  for (const folder of folders.filter((entry) => entry.path.includes('.tmp-') && entry.at < hourAgo)) rmSync(folder.path, { recursive: true, force: true });
  const builds = folders.filter((entry) => !entry.path.includes('.tmp-')).sort((a, b) => b.at - a.at);
  for (const build of builds.slice(KEEP - 1)) rmSync(build.path, { recursive: true, force: true });
}

const target = join(BUILDS, sourceKey());
if (!existsSync(join(target, 'complete'))) {
  mkdirSync(BUILDS, { recursive: true });
  await buildInto(target);
  trimCompileCache();
}
prune(target);
// Stack traces name the TypeScript sources.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(target, 'infra/local/main.js')).href);
