/**
 * Vitest global set-up: the Debian packages the suite drives are on the machine before any test
 * runs, so `npm ci` then `npm test` is the whole set-up (README). Missing ones are installed with
 * apt when this process may (root, or `sudo -n` works); otherwise the run stops at once with the
 * one command to type, instead of failing dozens of tests one by one.
 *
 * - chromium: the browser tests (storefront, sign-in page) drive Debian's Chromium;
 * - bubblewrap: hosted functions run in their own namespaces (functions.md §11);
 * - poppler-utils: the receipt tests read PDFs back with pdftotext and draw pages with pdftoppm;
 * - curl, jq, zip and openssl: the guides in docs/ are shell commands, run as written by test/e2e/docs.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';

interface SystemPackage {
  /** The command the tests run. */
  command: string;
  /** The Debian package that provides it. */
  debian: string;
  /** An environment variable that points at the command instead (the browser's `CHROMIUM_PATH`). */
  override?: string;
}

export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { command: 'chromium', debian: 'chromium', override: 'CHROMIUM_PATH' },
  { command: 'bwrap', debian: 'bubblewrap' },
  { command: 'pdftotext', debian: 'poppler-utils' },
  { command: 'pdftoppm', debian: 'poppler-utils' },
  // The guides' snippets (test/e2e/docs.test.ts) are shell commands with curl and jq.
  { command: 'curl', debian: 'curl' },
  { command: 'jq', debian: 'jq' },
  { command: 'zip', debian: 'zip' },
  { command: 'openssl', debian: 'openssl' },
];

const onPath = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** The Debian packages whose commands are missing (each once). */
export function missingPackages(packages: readonly SystemPackage[] = SYSTEM_PACKAGES): string[] {
  const missing = packages.filter((entry) => !(entry.override && process.env[entry.override]) && !onPath(entry.command));
  return [...new Set(missing.map((entry) => entry.debian))];
}

/** `[]` as root, `['sudo', '-n']` when password-less sudo works, null when apt cannot be run. */
function privilege(): string[] | null {
  if (!onPath('apt-get')) return null;
  if (process.getuid?.() === 0) return [];
  return onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 ? ['sudo', '-n'] : null;
}

function apt(prefix: string[], args: string[]): boolean {
  const [command, ...rest] = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
  try {
    execFileSync(command!, rest, { stdio: ['ignore', 'ignore', 'inherit'] });
    return true;
  } catch {
    return false;
  }
}

export default function setup(): void {
  const missing = missingPackages();
  if (!missing.length) return;
  const command = `sudo apt-get install -y ${missing.join(' ')}`;
  const prefix = privilege();
  if (!prefix) {
    throw new Error(`The tests need Debian packages that are not installed: ${missing.join(', ')}. Run: ${command}`);
  }
  process.stdout.write(`Installing the Debian packages the tests drive: ${missing.join(', ')} (apt-get)…\n`);
  const installed = apt(prefix, ['install', '-y', ...missing]) || (apt(prefix, ['update']) && apt(prefix, ['install', '-y', ...missing]));
  const still = missingPackages();
  if (!installed || still.length) {
    throw new Error(`Installing ${missing.join(', ')} with apt-get failed${still.length ? ` (still missing: ${still.join(', ')})` : ''}. Run: ${command}`);
  }
  process.stdout.write(`Installed ${missing.join(', ')}.\n`);
}
