/**
 * Another commit of this repository, checked out to a temporary folder so a bench can start
 * its runtime next to the current tree's (`git worktree add --detach`), sharing the current
 * checkout's installed `node_modules` (a symlink: nothing is installed).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A checked-out commit; `remove()` takes the worktree away again (safe to call twice). */
export interface BaselineTree {
  /** The folder to run from. */
  root: string;
  /** Full commit id, and `<short> <subject>` for printing. */
  commit: string;
  title: string;
  remove(): void;
}

/** The repository the bench runs in (its top level). */
export function repositoryRoot(): string {
  return execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: import.meta.dirname, encoding: 'utf8' }).trim();
}

/** `<short> <subject>` of a commit of the repository (HEAD by default). */
export function commitTitle(ref = 'HEAD', cwd = repositoryRoot()): string {
  return execFileSync('git', ['log', '-1', '--format=%h %s', ref], { cwd, encoding: 'utf8' }).trim();
}

/**
 * Checks `ref` out to a new temporary folder and links the repository's `node_modules` (and
 * `.lambda-native`, when present) into it.
 *
 * @example const tree = checkOutBaseline('4876dda'); startRuntime({ root: tree.root }); tree.remove();
 */
export function checkOutBaseline(ref: string): BaselineTree {
  const repo = repositoryRoot();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const parent = mkdtempSync(join(tmpdir(), 'cartwheel-baseline-'));
  const root = join(parent, 'tree');
  git('worktree', 'add', '--detach', root, commit);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git('worktree', 'remove', '--force', root);
    } catch {
      // Already gone or half made: drop the folder and let git forget it.
      rmSync(root, { recursive: true, force: true });
      git('worktree', 'prune');
    }
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    for (const name of ['node_modules', '.lambda-native']) {
      const source = join(repo, name);
      if (existsSync(source)) symlinkSync(realpathSync(source), join(root, name));
    }
    return { root, commit, title: git('log', '-1', '--format=%h %s', commit), remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The file that holds the per-request DynamoDB meter (shared/store/request-cost.ts). */
const METER = 'shared/store/request-cost.ts';

/**
 * Gives the baseline the current tree's per-request DynamoDB meter (the `x-cartwheel-dynamodb`
 * header), for counting only, never for timing: the commit that added the meter is applied
 * to its `client.ts` and `gateway.ts`, and the meter itself copied over. Resolves to
 * `'native'` when the baseline has the meter already, `'added'`, or the reason it could not
 * be (the tree is then left as it was).
 */
export function addMeter(tree: BaselineTree): 'native' | 'added' | string {
  if (existsSync(join(tree.root, METER))) return 'native';
  const repo = repositoryRoot();
  const git = (cwd: string, args: string[], input?: string) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] }).trim();
  try {
    const added = git(repo, ['log', '--diff-filter=A', '--format=%H', 'HEAD', '--', METER]).split('\n').at(-1);
    if (!added) return `no commit of HEAD adds ${METER}`;
    const patch = git(repo, ['diff', `${added}^`, added, '--', 'shared/store/client.ts', 'infra/local/gateway.ts']);
    git(tree.root, ['apply', '--whitespace=nowarn', '-'], `${patch}\n`);
    copyFileSync(join(repo, METER), join(tree.root, METER));
    return 'added';
  } catch (error) {
    git(tree.root, ['checkout', '--', '.']);
    return `the meter's patch does not apply: ${String((error as Error).message).split('\n')[0]}`;
  }
}
