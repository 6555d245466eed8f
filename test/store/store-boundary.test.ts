/**
 * Only shared/store/ and the `*-store.ts` files build DynamoDB commands (issue 7, deliverable
 * 1; architecture.md "Inside a capability"): every other file under shared/ asks a store for
 * reads and named transaction entries, so keys, conditions and the meaning of a refused write
 * stay in one place per entity. Nor does any other file of shared/, handlers/ or infra/ name an
 * index key (`gsi1pk`, an index `gsi2`) or a `TableName`: index keys are built by the entities
 * that own them, and records reach the modules without storage attributes.
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

/** Names only the store may use: index keys and index names (`gsi1pk`, `'gsi2'`), and a command's `TableName`. */
const STORAGE_NAME = /\bgsi\d|\bTableName\b/;

/**
 * Files outside the store that name them for another reason than storing records: the local
 * DynamoDB emulator speaks the wire protocol (its requests name their table), and the CDK
 * stack's outputs have a key that happens to be called `TableName` (renaming it would change
 * the deployed stack's outputs).
 */
// The emulator front, the stack outputs, and the alarms (CloudWatch's DynamoDB metrics are dimensioned by TableName).
const SPEAKS_DYNAMODB = (file: string) => file.startsWith('infra/local/dynamo/') || file === 'infra/cloud/outputs.ts' || file === 'infra/cloud/monitoring.ts';

/** Whether a source file names an index key, an index or a `TableName`. */
function namesStorage(file: string): boolean {
  return STORAGE_NAME.test(readFileSync(join(root, file), 'utf8'));
}

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

  it('lets no file outside shared/store/ and the *-store.ts files name an index key or a TableName', () => {
    const sources = ['shared', 'handlers', 'infra'].flatMap((dir) => sourceFiles(join(root, dir)));
    expect(sources).toContain('infra/local/dynamo/emulator.ts');
    const offenders = sources.filter((file) => !mayBuildCommands(file) && !SPEAKS_DYNAMODB(file) && namesStorage(file));
    expect(offenders).toEqual([]);
  });

  it('recognises a file that names index keys or a TableName', () => {
    expect(namesStorage('shared/store/date-listing.ts')).toBe(true);
    expect(namesStorage('shared/modules/customers/customer-store.ts')).toBe(true);
    expect(namesStorage('shared/rest/cursor-list.ts')).toBe(false);
    expect(namesStorage('infra/cloud/outputs.ts')).toBe(true);
  });

  it('recognises a file that builds commands', () => {
    expect(buildsCommands('shared/store/transact.ts')).toBe(true);
    expect(buildsCommands('shared/modules/customers/customers.ts')).toBe(false);
  });
});
