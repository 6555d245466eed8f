/**
 * How a child of the local function runner is started (functions.md §11): the runtime's own
 * command (Node with its permission model and heap limit; the Python runner), wrapped in
 * bubblewrap when the machine has it. One code path: with bwrap the child sees its code at
 * `/var/task`, its scratch folder at `/tmp` and the runner's files under `/opt/cartwheel`; without
 * it the same command runs on the real paths.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository: the closest folder above this module holding the child programs. This module
 * runs from the sources, or bundled into the runtime's build (`.build/local/<key>/`, which has
 * no copy of the `.cjs` and `.py` files), whose folder is inside the repository.
 */
function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'infra/local/functions/node-child.cjs'))) return dir;
    if (dirname(dir) === dir) throw new Error('The local function runner cannot find infra/local/functions/node-child.cjs');
  }
}

const root = repoRoot();

/** The files a child runs: the runner's child programs and the platform wrapper. */
export const childFiles = {
  nodeChild: join(root, 'infra/local/functions/node-child.cjs'),
  nodeWrapper: join(root, 'shared/platform/function-wrapper/node/index.cjs'),
  pythonChild: join(root, 'infra/local/functions/python_child.py'),
  pythonWrapperDir: join(root, 'shared/platform/function-wrapper/python'),
};

/** Where a confined child sees things. */
const INSIDE = {
  code: '/var/task',
  scratch: '/tmp',
  nodeChild: '/opt/cartwheel/node-child.cjs',
  nodeWrapper: '/opt/cartwheel/wrapper/index.cjs',
  pythonChild: '/opt/cartwheel/python_child.py',
  pythonWrapperDir: '/opt/cartwheel/python',
};

/** Own PID, IPC and host-name namespaces (the mount namespace comes with bwrap), no capabilities, a new session, gone with its parent. */
const NAMESPACE_FLAGS = ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

/** The `PATH` a child gets: the system's, never the operator's (which names their home). */
export const CHILD_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The path of `name` on the operator's `PATH`, if it is an executable. */
export function onPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The bwrap binary when it is installed and can make namespaces here (a container may forbid
 * them), else undefined. Runs bwrap once (a few milliseconds).
 */
export function findBwrap(): string | undefined {
  const bwrap = onPath('bwrap');
  if (!bwrap) return undefined;
  // The flags children get (NAMESPACE_FLAGS), so a machine that refuses one of them runs children unconfined rather than not at all.
  const probe = spawnSync(bwrap, [...NAMESPACE_FLAGS, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/', 'true'], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0 ? bwrap : undefined;
}

/** The Python interpreter to run: its real executable (not a pyenv shim) and its installation prefix. */
export interface PythonInstall {
  executable: string;
  prefix: string;
}

/** Finds `python3` (or `command`) and asks it where it really lives; undefined when there is none. */
export function findPython(command = 'python3'): PythonInstall | undefined {
  try {
    const out = execFileSync(command, ['-c', 'import sys, json; print(json.dumps([sys.executable, sys.base_prefix]))'], { encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'pipe', 'ignore'] });
    const [executable, prefix] = JSON.parse(out.trim()) as [string, string];
    return { executable: realpathSync(executable), prefix: realpathSync(prefix) };
  } catch {
    return undefined;
  }
}

/** What one child needs to be started. */
export interface ChildLaunch {
  runtime: 'node' | 'python';
  /** The Node binary or the Python install. */
  node?: string;
  python?: PythonInstall;
  codeDir: string;
  scratchDir: string;
  memoryMb: number;
  /** The bwrap binary, or undefined to run without namespaces. */
  bwrap?: string;
}

/** The command to spawn, and the paths as the child sees them (for its init message and `HOME`/`TMPDIR`). */
export interface ChildCommand {
  file: string;
  args: string[];
  /** The working directory to spawn in (bwrap sets the child's own). */
  cwd: string;
  inside: { code: string; scratch: string; wrapperDir: string };
}

/** Builds the command that starts one child, confined by bwrap when `launch.bwrap` is set. */
export function childCommand(launch: ChildLaunch): ChildCommand {
  const confined = launch.bwrap !== undefined;
  const at = confined
    ? INSIDE
    : { code: launch.codeDir, scratch: launch.scratchDir, ...childFiles };
  let inner: string[];
  if (launch.runtime === 'node') {
    const node = launch.node ?? process.execPath;
    inner = [
      node,
      '--permission',
      `--allow-fs-read=${at.code}`,
      `--allow-fs-read=${at.nodeChild}`,
      `--allow-fs-read=${at.nodeWrapper}`,
      `--allow-fs-read=${at.scratch}`,
      `--allow-fs-write=${at.scratch}`,
      `--max-old-space-size=${launch.memoryMb}`,
      at.nodeChild,
      at.nodeWrapper,
    ];
  } else {
    const python = launch.python;
    if (!python) throw new Error('python3 is not installed');
    // -I: ignore PYTHON* variables and the user's site folder; -B: no .pyc in the read-only code; -u: output as it comes.
    inner = [python.executable, '-I', '-B', '-u', at.pythonChild];
  }
  const wrapperDir = launch.runtime === 'node' ? dirname(at.nodeWrapper) : at.pythonWrapperDir;
  const inside = { code: at.code, scratch: at.scratch, wrapperDir };
  if (!confined) return { file: inner[0]!, args: inner.slice(1), cwd: launch.codeDir, inside };

  const args = [...NAMESPACE_FLAGS];
  args.push(...systemBinds());
  if (launch.runtime === 'node') {
    const node = realpathSync(launch.node ?? process.execPath);
    if (!node.startsWith('/usr/')) args.push('--ro-bind', dirname(node), dirname(node));
    args.push('--ro-bind', childFiles.nodeChild, INSIDE.nodeChild, '--ro-bind', childFiles.nodeWrapper, INSIDE.nodeWrapper);
    inner[0] = node;
  } else {
    const prefix = launch.python!.prefix;
    if (!prefix.startsWith('/usr')) args.push('--ro-bind', prefix, prefix);
    args.push('--ro-bind', childFiles.pythonChild, INSIDE.pythonChild);
    args.push('--ro-bind', join(childFiles.pythonWrapperDir, 'cartwheel_wrapper.py'), join(INSIDE.pythonWrapperDir, 'cartwheel_wrapper.py'));
  }
  args.push('--ro-bind', launch.codeDir, INSIDE.code, '--bind', launch.scratchDir, INSIDE.scratch);
  // The root bwrap builds is a tmpfs: read-only too, so the scratch folder is the only place to write.
  args.push('--proc', '/proc', '--dev', '/dev', '--remount-ro', '/', '--chdir', INSIDE.code, '--');
  return { file: launch.bwrap!, args: [...args, ...inner], cwd: launch.codeDir, inside };
}

let binds: string[] | undefined;

/**
 * The host's system files a runtime needs, read-only: `/usr` and the top-level links or folders
 * into it, the loader cache, name resolution and CA certificates. Not `/etc` wholesale, `/root`,
 * `/home`, the repository or the data directory.
 */
function systemBinds(): string[] {
  if (binds) return binds;
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let stat;
    try {
      stat = lstatSync(top);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (stat.isDirectory()) args.push('--ro-bind', top, top);
  }
  for (const file of ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf', '/etc/ssl', '/etc/ca-certificates', '/etc/pki']) {
    if (existsSync(file)) args.push('--ro-bind', file, file);
  }
  binds = args;
  return args;
}
