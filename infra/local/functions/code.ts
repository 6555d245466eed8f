/**
 * The local runner's code folders (functions.md §11 "Unpacking"): each uploaded zip is unpacked
 * once, with the checks of §4 (`openZipPackage`), into a folder named for its code key inside the
 * function's own folder, `<dir>/<account>/<mode>/<function>/code-<sha of codeKey>/`. It is
 * written under a temporary name and renamed, so a folder that exists is complete and is reused
 * (deploying again, a restart, a settings-only change).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FUNCTION_PACKAGE_LIMITS, openZipPackage } from '../../../shared/core/packages/zip-package';
import type { FunctionRef, FunctionRuntime, ObjectStorage } from '../../../shared/platform/ports';

/** Ids become folder names: only the characters platform ids are made of. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The folder of one function (its code folders and the scratch folders of its children). */
export function functionDir(root: string, ref: FunctionRef): string {
  for (const part of [ref.accountId, ref.mode, ref.functionId]) {
    if (!SAFE_ID.test(part)) throw new Error(`Unexpected function reference part ${JSON.stringify(part)}`);
  }
  return join(root, ref.accountId, ref.mode, ref.functionId);
}

/** The code folder of `codeKey` inside a function's folder. */
export function codeDirName(codeKey: string): string {
  return `code-${createHash('sha256').update(codeKey).digest('hex').slice(0, 24)}`;
}

/** A merchant mistake or a missing zip: what deployment answers as `{ ok: false, message }`. */
export class CodeProblem extends Error {
  override name = 'CodeProblem';
}

/**
 * Unpacks the zip stored under `codeKey` into `codeDir` unless that folder already exists.
 * Throws `CodeProblem` when the zip is missing or refused.
 */
export async function unpackCode(objects: ObjectStorage, codeKey: string, codeDir: string): Promise<void> {
  if (existsSync(codeDir)) return;
  const zip = await objects.get('functions', codeKey);
  if (!zip) throw new CodeProblem(`The code package ${codeKey} is not in storage.`);
  let pkg;
  try {
    pkg = await openZipPackage(zip, FUNCTION_PACKAGE_LIMITS);
  } catch (error) {
    throw new CodeProblem(`The code package cannot be unpacked: ${(error as Error).message}`);
  }
  const temp = `${codeDir}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    await mkdir(temp, { recursive: true });
    for (const file of pkg.files) {
      // Paths passed openZipPackage's checks: relative, no `..`, no empty segments.
      const target = join(temp, file.path);
      await mkdir(dirname(target), { recursive: true });
      let content: Buffer;
      try {
        content = await pkg.read(file);
      } catch (error) {
        throw new CodeProblem(`The code package cannot be unpacked: ${(error as Error).message}`);
      }
      await writeFile(target, content, { mode: 0o644 });
    }
    try {
      await rename(temp, codeDir);
    } catch (error) {
      // Unpacked meanwhile by another deployment of the same code: that copy is as good.
      if (!existsSync(codeDir)) throw error;
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * Why the handler named by `handler` cannot be found in `codeDir` (functions.md §2), or
 * undefined when it can. Java and .NET handlers are checked for their form only.
 */
export function handlerProblem(codeDir: string, runtime: FunctionRuntime, handler: string): string | undefined {
  const isFile = (path: string) => {
    try {
      return statSync(join(codeDir, path)).isFile();
    } catch {
      return false;
    }
  };
  if (runtime === 'nodejs22.x') {
    const dot = handler.lastIndexOf('.');
    if (dot <= 0 || dot === handler.length - 1) return `The handler "${handler}" is not of the form <file>.<function>.`;
    const file = handler.slice(0, dot);
    if (!['.js', '.mjs', '.cjs'].some((ext) => isFile(`${file}${ext}`))) return `The package has no ${file}.js, ${file}.mjs or ${file}.cjs for the handler "${handler}".`;
    return undefined;
  }
  if (runtime === 'python3.13') {
    const dotted = handler.replaceAll('/', '.');
    const dot = dotted.lastIndexOf('.');
    if (dot <= 0 || dot === dotted.length - 1) return `The handler "${handler}" is not of the form <module>.<function>.`;
    const module = dotted.slice(0, dot).replaceAll('.', '/');
    if (!isFile(`${module}.py`) && !isFile(`${module}/__init__.py`)) return `The package has no ${module}.py for the handler "${handler}".`;
    return undefined;
  }
  return undefined;
}

/** Removes the code folders of a function other than `keep` (not the temporary ones: an unpack may be writing them). */
export async function removeCodeDirs(dir: string, keep: ReadonlySet<string>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(names.filter((name) => name.startsWith('code-') && !name.includes('.tmp-') && !keep.has(join(dir, name))).map((name) => rm(join(dir, name), { recursive: true, force: true })));
}
