/**
 * Only shared/store/ and the `*-store.ts` files build DynamoDB commands (issue 7, deliverable
 * 1; architecture.md "Inside a capability"): every other file under shared/ asks a store for
 * reads and named transaction entries, so keys, conditions and the meaning of a refused write
 * stay in one place per entity.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesEndingWith } from '../support/source-files';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Modules that still build their own commands while they are being moved onto their stores
 * (none left: carts, orders, payments and payment methods are converted). Remove a file from
 * this list in the change that converts it; the second test fails while a listed file is clean.
 */
const NOT_YET_CONVERTED: string[] = [];

/** Source files under `dir`, relative to the repository root with forward slashes. */
const sourceFiles = (dir: string): string[] => filesEndingWith(dir, '.ts').map((path) => relative(root, path).split('\\').join('/'));

const SDK_IMPORT = /from\s+['"]@aws-sdk\/(lib-dynamodb|client-dynamodb)['"]|import\(\s*['"]@aws-sdk\/(lib-dynamodb|client-dynamodb)['"]\s*\)/;
const DB_CALL = /\bdb\(\)/;

/** Whether a source file builds DynamoDB commands itself. */
function buildsCommands(file: string): boolean {
  const text = readFileSync(join(root, file), 'utf8');
  return SDK_IMPORT.test(text) || DB_CALL.test(text);
}

const mayBuildCommands = (file: string) => file.startsWith('shared/store/') || file.endsWith('-store.ts');

describe('store boundary', () => {
  const files = sourceFiles(join(root, 'shared'));

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('shared/store/entity.ts');
  });

  it('lets no file outside shared/store/ and the *-store.ts files build DynamoDB commands', () => {
    const offenders = files.filter((file) => !mayBuildCommands(file) && !NOT_YET_CONVERTED.includes(file) && buildsCommands(file));
    expect(offenders).toEqual([]);
  });

  it('lists only files that exist and still build commands (a converted file leaves the list)', () => {
    const stale = NOT_YET_CONVERTED.filter((file) => !files.includes(file) || !buildsCommands(file));
    expect(stale).toEqual([]);
  });

  it('recognises a file that builds commands', () => {
    expect(buildsCommands('shared/store/transact.ts')).toBe(true);
    expect(buildsCommands('shared/modules/customers/customers.ts')).toBe(false);
  });
});
