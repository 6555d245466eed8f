/**
 * `account:create --secrets-to`: the secrets (owner password, API tokens) go to a file only the
 * operator can read, created for real here (mode 0600, never over an existing file, never in the
 * repository, made before the account and removed if the account fails), and stdout shows only
 * the account id and where the secrets went. The cloud run is mocked with aws-sdk-client-mock.
 */
import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateSecretCommand, DescribeSecretCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseCreateAccountArgs } from '../../../infra/accounts/create-account';
import { createSecretsFile, parseSecretsTarget, REPOSITORY_ROOT } from '../../../infra/accounts/secrets-target';
import { describeStacksOutput, freshCli, STACK_OUTPUTS } from './fixtures/cloud-cli';

process.env.AWS_REGION ??= 'eu-west-1';

const cloudFormation = mockClient(CloudFormationClient);
const kms = mockClient(KMSClient);
const ddb = mockClient(DynamoDBDocumentClient);
const secretsManager = mockClient(SecretsManagerClient);
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cartwheel/prod/owner-AbCdEf';
const CLOUD = ['--company', 'Acme Ltd', '--email', 'owner@acme.example', '--target', 'cloud', '--stage', 'test'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cartwheel-secrets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  cloudFormation.reset();
  kms.reset();
  ddb.reset();
  secretsManager.reset();
  secretsManager.on(DescribeSecretCommand).rejects(new ResourceNotFoundException({ message: 'Secrets Manager can\'t find the specified secret.', $metadata: {} }));
  secretsManager.on(CreateSecretCommand).resolves({ ARN: SECRET_ARN, Name: 'cartwheel/prod/owner' });
  cloudFormation.on(DescribeStacksCommand).resolves(describeStacksOutput(STACK_OUTPUTS));
  kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed') });
  ddb.on(TransactWriteCommand).resolves({});
});

const exists = (path: string) => lstat(path).then(() => true, () => false);

describe('--secrets-to', () => {
  it('takes stdout and file:<path> (made absolute)', () => {
    expect(parseSecretsTarget('stdout')).toEqual({ kind: 'stdout' });
    expect(parseSecretsTarget('file:/root/owner.json')).toEqual({ kind: 'file', path: '/root/owner.json' });
    expect(parseSecretsTarget('file:owner.json')).toEqual({ kind: 'file', path: join(process.cwd(), 'owner.json') });
    expect(parseCreateAccountArgs([...CLOUD, '--secrets-to', 'file:/root/owner.json']).secretsTo).toEqual({ kind: 'file', path: '/root/owner.json' });
    expect('secretsTo' in parseCreateAccountArgs(CLOUD)).toBe(false);
  });

  it('takes secretsmanager:<name> and refuses a name Secrets Manager would not take, and anything else, with a readable message', () => {
    expect(parseSecretsTarget('secretsmanager:cartwheel/prod/owner')).toEqual({ kind: 'secretsmanager', name: 'cartwheel/prod/owner' });
    expect(() => parseSecretsTarget('secretsmanager:')).toThrow(/needs a name/);
    expect(() => parseSecretsTarget('secretsmanager:bad name!')).toThrow(/needs a name/);
    expect(() => parseSecretsTarget('ssm:/cartwheel/prod/owner')).toThrow('--secrets-to must be stdout, file:<path> or secretsmanager:<name>');
    expect(() => parseSecretsTarget('file:')).toThrow('--secrets-to file:<path> needs a path');
    expect(() => parseSecretsTarget('s3://bucket/key')).toThrow('--secrets-to must be stdout, file:<path> or secretsmanager:<name>');
    expect(() => parseCreateAccountArgs([...CLOUD, '--secrets-to', 'vault:x'])).toThrow('--secrets-to must be stdout, file:<path> or secretsmanager:<name>');
  });
});

describe('the secrets file', () => {
  it('is created with mode 0600 and holds the document written', async () => {
    const path = join(dir, 'made.json');
    const file = await createSecretsFile(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await file.write({ account_id: 'A1' } as never);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ account_id: 'A1' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('never overwrites an existing file', async () => {
    const path = join(dir, 'kept.json');
    await writeFile(path, 'earlier secrets');
    await expect(createSecretsFile(path)).rejects.toThrow(`--secrets-to: ${path} already exists; it is never overwritten`);
    expect(await readFile(path, 'utf8')).toBe('earlier secrets');
  });

  it('never follows a link planted at its name', async () => {
    const path = join(dir, 'planted.json');
    await symlink(join(dir, 'elsewhere.json'), path);
    await expect(createSecretsFile(path)).rejects.toThrow(/already exists/);
    expect(await exists(join(dir, 'elsewhere.json'))).toBe(false);
  });

  it('is refused inside the repository, also through a linked directory', async () => {
    await expect(createSecretsFile(join(REPOSITORY_ROOT, 'owner-secrets.json'))).rejects.toThrow(/is inside the repository/);
    const link = join(dir, 'checkout');
    await symlink(REPOSITORY_ROOT, link);
    await expect(createSecretsFile(join(link, 'owner-secrets.json'))).rejects.toThrow(/is inside the repository/);
    expect(await exists(join(REPOSITORY_ROOT, 'owner-secrets.json'))).toBe(false);
  });

  it('is refused in a directory that does not exist', async () => {
    await expect(createSecretsFile(join(dir, 'missing', 'owner.json'))).rejects.toThrow(`--secrets-to: the directory ${join(dir, 'missing')} does not exist`);
  });

  it('is removed by discard', async () => {
    const path = join(dir, 'discarded.json');
    const file = await createSecretsFile(path);
    await file.discard();
    expect(await exists(path)).toBe(false);
  });
});

describe('account:create --target cloud --secrets-to file:<path>', () => {
  it('writes the secrets to the file and prints only the account id and where they went', async () => {
    const path = join(dir, 'first-account.json');
    const printed = await (await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', `file:${path}`]);
    const stored = JSON.parse(await readFile(path, 'utf8'));
    expect(stored).toMatchObject({ owner: { user_id: 'owner', email: 'owner@acme.example' }, api_url: STACK_OUTPUTS.ApiUrl });
    expect(stored.tokens.live_secret).toMatch(/^sk\.live\./);
    expect(stored.owner.password.length).toBeGreaterThanOrEqual(10);
    expect(JSON.parse(printed)).toEqual({ account_id: stored.account_id, secrets: `file:${path}` });
    for (const secret of [stored.owner.password, stored.tokens.live_secret, stored.tokens.test_secret]) expect(printed).not.toContain(secret);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('creates no account when the file is refused', async () => {
    const path = join(dir, 'taken.json');
    await writeFile(path, 'x');
    await expect((await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', `file:${path}`])).rejects.toThrow(/already exists/);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(kms.commandCalls(EncryptCommand)).toHaveLength(0);
  });

  it('removes the file when the account could not be created', async () => {
    const path = join(dir, 'failed.json');
    ddb.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: Array.from({ length: 11 }, (_, at) => ({ Code: at === 3 ? 'ConditionalCheckFailed' : 'None' })) }));
    await expect((await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', `file:${path}`])).rejects.toMatchObject({ code: 'in_use' });
    expect(await exists(path)).toBe(false);
  });

  it('prints the whole document without --secrets-to, as before', async () => {
    const printed = JSON.parse(await (await freshCli()).runCreateAccountCommand(CLOUD));
    expect(printed.owner.password.length).toBeGreaterThanOrEqual(10);
    expect(printed.tokens.test_secret).toMatch(/^sk\.test\./);
  });
});

describe('account:create --target cloud --secrets-to secretsmanager:<name>', () => {
  it('creates the secret once the account exists and prints only the account id and the secret\'s ARN', async () => {
    const printed = await (await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', 'secretsmanager:cartwheel/prod/owner']);
    const [create] = secretsManager.commandCalls(CreateSecretCommand);
    expect(create).toBeDefined();
    const input = create!.args[0].input;
    expect(input.Name).toBe('cartwheel/prod/owner');
    const stored = JSON.parse(input.SecretString!);
    expect(stored.tokens.live_secret).toMatch(/^sk\.live\./);
    expect(input.Tags).toEqual([{ Key: 'cartwheel:account', Value: stored.account_id }]);
    expect(JSON.parse(printed)).toEqual({ account_id: stored.account_id, secrets: `secretsmanager:${SECRET_ARN}` });
    for (const secret of [stored.owner.password, stored.tokens.live_secret, stored.tokens.test_secret]) expect(printed).not.toContain(secret);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('creates no account when the secret name is taken, and never touches that secret', async () => {
    secretsManager.on(DescribeSecretCommand).resolves({ ARN: SECRET_ARN, Name: 'cartwheel/prod/owner' });
    await expect((await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', 'secretsmanager:cartwheel/prod/owner'])).rejects.toThrow(/already exists in Secrets Manager/);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(secretsManager.commandCalls(CreateSecretCommand)).toHaveLength(0);
  });

  it('names the account that exists when the secret cannot be created', async () => {
    secretsManager.on(CreateSecretCommand).rejects(new Error('AccessDeniedException: not authorized to perform secretsmanager:CreateSecret'));
    await expect((await freshCli()).runCreateAccountCommand([...CLOUD, '--secrets-to', 'secretsmanager:cartwheel/prod/owner'])).rejects.toThrow(/^account \w+ was created, but its secrets could not be written to secretsmanager:cartwheel\/prod\/owner: AccessDenied/);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});
