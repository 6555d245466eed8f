/**
 * Where `account:create` puts a new account's secrets (the owner's password, the API tokens):
 * stdout, as one JSON document (the default, fine for the local runtime), or a file only the
 * operator can read (`--secrets-to file:<path>`), for the cloud, where a terminal's scrollback
 * or a CI log is no place for them.
 *
 * The file is created before the account (mode 0600, never over an existing file, never inside
 * the repository where `git add -A` would take it), so a refused target costs no account, and
 * written once the account exists. In the cloud the natural home is AWS Secrets Manager
 * (`--secrets-to secretsmanager:<name>`): the name is checked to be free before the account is
 * made, and the secret is created once it exists (docs/operations.md, §7).
 */
import { constants } from 'node:fs';
import { open, realpath, unlink, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { CreateSecretCommand, DescribeSecretCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { fileURLToPath } from 'node:url';
import type { AccountBootstrap } from '../../shared/modules/accounts';

/** The checkout the command runs from: secrets files are refused inside it. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the secrets go. */
export type SecretsTarget = { kind: 'stdout' } | { kind: 'file'; path: string } | { kind: 'secretsmanager'; name: string };

/**
 * The target an `--secrets-to` value names: `stdout`, or `file:<path>` (relative to the working
 * directory). Throws a readable message for anything else.
 *
 * @example parseSecretsTarget('file:/root/cartwheel-prod-owner.json') // { kind: 'file', path: '/root/cartwheel-prod-owner.json' }
 */
export function parseSecretsTarget(value: string): SecretsTarget {
  if (value === 'stdout') return { kind: 'stdout' };
  const colon = value.indexOf(':');
  const scheme = colon < 0 ? value : value.slice(0, colon);
  const rest = colon < 0 ? '' : value.slice(colon + 1);
  if (scheme === 'file') {
    if (!rest) throw new Error('--secrets-to file:<path> needs a path');
    return { kind: 'file', path: path.resolve(rest) };
  }
  if (scheme === 'secretsmanager') {
    // Secrets Manager's own name rule: 1–512 of letters, digits and /_+=.@-
    if (!/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(rest)) throw new Error('--secrets-to secretsmanager:<name> needs a name of 1–512 letters, digits and /_+=.@-');
    return { kind: 'secretsmanager', name: rest };
  }
  throw new Error('--secrets-to must be stdout, file:<path> or secretsmanager:<name>');
}

/** Whether `target` is `root` or under it. */
function isWithin(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Where a new account's secrets are kept, prepared before the account: written once, or given up. */
export interface SecretsSink {
  /** The target as `--secrets-to` names it (`file:/abs/path`, `secretsmanager:<arn>` once written). */
  readonly where: string;
  /** Stores the whole document. */
  write(result: AccountBootstrap): Promise<void>;
  /** Gives up the prepared target (the account was not created). */
  discard(): Promise<void>;
}

/** A secrets file created (empty, mode 0600) before the account: written once, or removed. */
export interface SecretsFile extends SecretsSink {
  readonly path: string;
  /** Writes the whole document and closes the file. */
  write(result: AccountBootstrap): Promise<void>;
  /** Closes and removes the still empty file (the account was not created). */
  discard(): Promise<void>;
}

/**
 * Creates the secrets file at `filePath`: refused inside `repositoryRoot` (after resolving
 * links, so a link into the checkout is refused too), when the file exists (whatever it is), or
 * when its directory does not exist. Created with mode 0600 (owner read and write only).
 */
export async function createSecretsFile(filePath: string, repositoryRoot: string = REPOSITORY_ROOT): Promise<SecretsFile> {
  const absolute = path.resolve(filePath);
  let directory: string;
  try {
    directory = await realpath(path.dirname(absolute));
  } catch {
    throw new Error(`--secrets-to: the directory ${path.dirname(absolute)} does not exist`);
  }
  const target = path.join(directory, path.basename(absolute));
  if (isWithin(await realpath(repositoryRoot), target)) {
    throw new Error(`--secrets-to: ${absolute} is inside the repository (${repositoryRoot}); write secrets outside any checkout`);
  }
  let handle: FileHandle;
  try {
    // O_EXCL: never over an existing file; O_NOFOLLOW: never through a link planted at the name.
    handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`--secrets-to: ${absolute} already exists; it is never overwritten`);
    throw new Error(`--secrets-to: cannot create ${absolute}: ${(error as Error).message}`);
  }
  // A umask cannot widen 0600, but a file system may ignore the mode at creation: set it again.
  await handle.chmod(0o600);
  return {
    path: target,
    where: `file:${target}`,
    async write(result) {
      try {
        await handle.writeFile(`${JSON.stringify(result, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
    async discard() {
      await handle.close().catch(() => undefined);
      await unlink(target).catch(() => undefined);
    },
  };
}

/**
 * A Secrets Manager secret named `name`, checked to be free before the account is made (a name
 * in use is refused: the command never overwrites or adds a version to someone's secret), and
 * created with the document as its JSON string once the account exists. The secret is encrypted
 * with the account's default Secrets Manager key unless `kmsKeyId` names another.
 */
export async function createSecretsManagerSink(name: string, client: SecretsManagerClient = new SecretsManagerClient({}), kmsKeyId?: string): Promise<SecretsSink> {
  try {
    await client.send(new DescribeSecretCommand({ SecretId: name }));
    throw new Error(`--secrets-to: the secret ${name} already exists in Secrets Manager; it is never overwritten`);
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  let where = `secretsmanager:${name}`;
  return {
    get where() {
      return where;
    },
    async write(result) {
      const created = await client.send(new CreateSecretCommand({
        Name: name,
        Description: `Cartwheel account ${result.account_id}: owner password and API tokens (account:create)`,
        SecretString: JSON.stringify(result),
        ...(kmsKeyId ? { KmsKeyId: kmsKeyId } : {}),
        Tags: [{ Key: 'cartwheel:account', Value: result.account_id }],
      }));
      if (created.ARN) where = `secretsmanager:${created.ARN}`;
    },
    async discard() {
      // Nothing was created before the account.
    },
  };
}

/** What the command prints once the secrets went elsewhere: the account and where its secrets are, nothing secret. */
export function secretsReceipt(result: AccountBootstrap, sink: SecretsSink): { account_id: string; secrets: string } {
  return { account_id: result.account_id, secrets: sink.where };
}
