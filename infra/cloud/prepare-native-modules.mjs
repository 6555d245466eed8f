#!/usr/bin/env node
/**
 * Prepares the linux-arm64 builds of the native packages Lambda bundles ship (sharp's binary
 * and libvips, infra/cloud/native-modules.ts) in `.lambda-native/node_modules/`, so
 * `cdk synth` works offline afterwards. Runs from `postinstall` (`npm ci`), or by hand:
 *
 *   npm run prepare:lambda-native
 *
 * `npm ci` installs only the packages of the machine it runs on (x64 here), so the arm64 ones
 * are fetched with `npm pack` at the exact versions of package-lock.json and checked against
 * the lock's integrity, then unpacked. On an arm64 Linux machine they are copied from
 * node_modules instead. Without the registry (and nothing in npm's cache) it warns and exits
 * 0: everything but synthesizing the stack still works, and synth says what is missing.
 * Plain Node (no TypeScript, no dependencies): it runs before anything else is ready.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where prepared packages live (git-ignored); native-modules.ts reads the same path. */
const prepared = join(root, '.lambda-native', 'node_modules');
/** The arm64 packages each native module needs beside its JavaScript. */
const NATIVE_PACKAGES = ['@img/sharp-linux-arm64', '@img/sharp-libvips-linux-arm64'];

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/** The version and integrity package-lock.json pins for a package. */
function pinned(name) {
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity) throw new Error(`package-lock.json pins no version of ${name}`);
  return { version: entry.version, integrity: entry.integrity };
}

/** The version of an unpacked package directory, or undefined. */
function versionIn(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** The npm command of this install (npm sets npm_execpath for lifecycle scripts). */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath && execPath.endsWith('.js') ? [process.execPath, [execPath]] : ['npm', []];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Fetches `name@version` with npm pack, checks it against the lock, unpacks it to `target`. */
function fetchPackage(name, { version, integrity }, target) {
  const work = mkdtempSync(join(tmpdir(), 'cartwheel-native-'));
  try {
    // From the project directory, so its .npmrc (a private registry, say) applies.
    const packed = JSON.parse(npm(['pack', `${name}@${version}`, '--json', '--prefer-offline', '--pack-destination', work], root));
    const file = join(work, packed[0].filename);
    const [algorithm, expected] = integrity.split('-', 2);
    const actual = createHash(algorithm).update(readFileSync(file)).digest('base64');
    if (actual !== expected) throw new Error(`${name}@${version} does not match the integrity in package-lock.json`);
    execFileSync('tar', ['-xzf', file, '-C', work]);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(join(work, 'package'), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const missing = [];
for (const name of NATIVE_PACKAGES) {
  const pin = pinned(name);
  const target = join(prepared, name);
  if (versionIn(target) === pin.version) continue;
  const installed = join(root, 'node_modules', name);
  try {
    if (versionIn(installed) === pin.version) {
      // An arm64 Linux machine installed it itself.
      rmSync(target, { recursive: true, force: true });
      cpSync(installed, target, { recursive: true });
    } else {
      fetchPackage(name, pin, target);
    }
    console.log(`prepare-native-modules: ${name}@${pin.version} ready in .lambda-native/`);
  } catch (error) {
    missing.push(`${name}@${pin.version} (${String(error.message ?? error).split('\n')[0]})`);
  }
}
if (missing.length) {
  console.warn(
    `prepare-native-modules: could not prepare ${missing.join(', ')}.\n` +
      '  Lambda bundles need them for linux-arm64; run `npm run prepare:lambda-native` with access to the npm registry before `cdk synth`.',
  );
}
