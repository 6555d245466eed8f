/**
 * Packages with native code in Lambda bundles. esbuild cannot inline a `.node` binary, so such
 * a package stays external and ships beside the bundle in `node_modules/`: its JavaScript
 * (and its dependencies') from the project's node_modules, its linux-arm64 binaries (the
 * functions run on Graviton) from `.lambda-native/`, which `npm ci` prepares through
 * `postinstall` (prepare-native-modules.mjs). Synthesis stays offline; without the prepared
 * packages it fails with what to run.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A native package a family may declare (`nativeModules` in shared/app/routes.ts). */
export type NativeModule = 'sharp';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Where `npm ci` (postinstall) prepares the linux-arm64 packages. */
export const preparedNativeDir = path.join(repoRoot, '.lambda-native', 'node_modules');

/** The linux-arm64 packages of each native module, besides its JavaScript. */
const ARM64_PACKAGES: Record<NativeModule, readonly string[]> = {
  sharp: ['@img/sharp-linux-arm64', '@img/sharp-libvips-linux-arm64'],
};

/** What of a JavaScript package a bundle needs (all of it unless listed: sharp's sources and install scripts stay out). */
const SHIPPED_PARTS: Record<string, readonly string[]> = { sharp: ['package.json', 'LICENSE', 'dist'] };

/** One copy into the bundle directory: an absolute source, a destination relative to the bundle. */
export interface BundleCopy {
  from: string;
  to: string;
}

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function packageJson(dir: string): PackageJson | undefined {
  const file = path.join(dir, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageJson) : undefined;
}

/** A package and its dependencies, recursively, as installed in the project's node_modules. */
function withDependencies(name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const manifest = packageJson(path.join(repoRoot, 'node_modules', name));
  if (!manifest) throw new Error(`${name} is not installed: run npm ci`);
  return [name, ...Object.keys(manifest.dependencies ?? {}).flatMap((dependency) => withDependencies(dependency, seen))];
}

/** The directory of an arm64 package at `version`: prepared, or installed by an arm64 Linux machine. */
function arm64Package(name: string, version: string, preparedDir: string): string {
  for (const dir of [path.join(preparedDir, name), path.join(repoRoot, 'node_modules', name)]) {
    if (packageJson(dir)?.version === version) return dir;
  }
  throw new Error(
    `The Lambda bundle needs ${name}@${version} (linux-arm64), which is not prepared in .lambda-native/. ` +
      'Run `npm run prepare:lambda-native` once with access to the npm registry (npm ci runs it too), then synthesize again.',
  );
}

/**
 * The files a bundle with these native modules needs beside `index.mjs`, and the module names
 * esbuild must leave external. Throws (failing synthesis) when an arm64 package is missing.
 */
export function nativeModuleFiles(modules: readonly NativeModule[], preparedDir = preparedNativeDir): { externals: string[]; copies: BundleCopy[] } {
  const copies: BundleCopy[] = [];
  for (const module of modules) {
    const manifest = packageJson(path.join(repoRoot, 'node_modules', module))!;
    for (const name of withDependencies(module)) {
      const dir = path.join(repoRoot, 'node_modules', name);
      for (const part of SHIPPED_PARTS[name] ?? ['.']) copies.push({ from: path.join(dir, part), to: path.posix.join('node_modules', name, part) });
    }
    for (const name of ARM64_PACKAGES[module]) {
      const version = manifest.optionalDependencies?.[name];
      if (!version) throw new Error(`${module}@${manifest.version} names no ${name}`);
      copies.push({ from: arm64Package(name, version, preparedDir), to: path.posix.join('node_modules', name) });
    }
  }
  return { externals: [...modules], copies };
}

/** The shell command (run after esbuild, in the bundle's staging directory) that copies `copies` into `outputDir`. */
export function copyCommand(outputDir: string, copies: readonly BundleCopy[]): string {
  const script = `const fs=require('fs'),p=require('path');for(const [f,t] of ${JSON.stringify(copies.map((copy) => [copy.from, copy.to]))}){const d=p.join(process.argv[1],t);fs.mkdirSync(p.dirname(d),{recursive:true});fs.cpSync(f,d,{recursive:true,dereference:true});}`;
  return `"${process.execPath}" -e ${JSON.stringify(script)} ${JSON.stringify(outputDir)}`;
}
