/**
 * Operator command (auth.md section 10):
 *
 *   npm run account:create -- --company "Acme Ltd" --email owner@acme.example \
 *       [--user-id owner] [--password <pw>] [--target local|cloud] [--stage <name>] \
 *       [--secrets-to stdout|file:<path>|secretsmanager:<name>]
 *
 * `--target local` (default) writes into CARTWHEEL_DATA_DIR (the local server must be
 * stopped); `--target cloud` writes into the deployed stage's table with the operator's own
 * AWS credentials, reading names from the stack outputs of `Cartwheel-<stage>`.
 * Prints one JSON document on stdout and exits 0; on failure writes to stderr and exits 1. The
 * document holds the owner's password and the API tokens; with `--secrets-to file:<path>` it
 * goes to that file instead (mode 0600, created before the account, never over an existing
 * file nor inside the repository: ./secrets-target.ts) and stdout shows only the account id and
 * where its secrets are.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createAccount, type AccountBootstrap } from '../../shared/modules/accounts';
import { readConfig, useConfig, type PlatformConfig } from '../../shared/core/config';
import { ApiError } from '../../shared/http/errors';
import { configureStore } from '../../shared/store/client';
import { cloudPlatform } from '../../shared/app/platforms';
import type { Platform } from '../../shared/platform/ports';
import { outputNames } from '../cloud/outputs';
import { createSecretsFile, createSecretsManagerSink, parseSecretsTarget, secretsReceipt, type SecretsSink, type SecretsTarget } from './secrets-target';

/** Parsed command-line options. */
export interface CreateAccountArgs {
  company: string;
  email: string;
  userId?: string;
  password?: string;
  target: 'local' | 'cloud';
  stage: string;
  /** Where the secrets go (stdout when not given). */
  secretsTo?: SecretsTarget;
}

/** Parses and checks the command line; throws a readable message on misuse. */
export function parseCreateAccountArgs(argv: string[]): CreateAccountArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      company: { type: 'string' },
      email: { type: 'string' },
      'user-id': { type: 'string' },
      password: { type: 'string' },
      target: { type: 'string', default: 'local' },
      stage: { type: 'string', default: 'dev' },
      'secrets-to': { type: 'string' },
    },
    strict: true,
  });
  if (!values.company) throw new Error('--company is required');
  if (!values.email) throw new Error('--email is required');
  if (values.target !== 'local' && values.target !== 'cloud') throw new Error('--target must be local or cloud');
  return {
    company: values.company,
    email: values.email,
    ...(values['user-id'] ? { userId: values['user-id'] } : {}),
    ...(values.password !== undefined ? { password: values.password } : {}),
    target: values.target,
    stage: values.stage!,
    ...(values['secrets-to'] !== undefined ? { secretsTo: parseSecretsTarget(values['secrets-to']) } : {}),
  };
}

/**
 * The configuration of the deployed stage `stage`: this shell's environment with the names,
 * key and URLs of its stack's outputs (the environment is read, never written).
 */
async function cloudSettings(stage: string): Promise<PlatformConfig> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const stackName = `Cartwheel-${stage}`;
  const client = new CloudFormationClient({});
  const described = await client.send(new DescribeStacksCommand({ StackName: stackName }));
  // Write where the stack was read: KMS and DynamoDB take their region from shared/core/config.ts,
  // which falls back to us-east-1 when only the AWS profile names a region.
  const region = await client.config.region();
  const outputs = Object.fromEntries((described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const need = (key: string): string => {
    const value = outputs[key];
    if (!value) throw new Error(`Stack ${stackName} has no output ${key}; deploy it first with npx cdk deploy`);
    return value;
  };
  const api = need(outputNames.apiUrl);
  // A shell that ran the local runtime may still point at its emulators: those endpoints are left out.
  const { CARTWHEEL_DYNAMODB_ENDPOINT: _dynamodb, CARTWHEEL_SQS_ENDPOINT: _sqs, CARTWHEEL_S3_ENDPOINT: _s3, ...shell } = process.env;
  return readConfig({
    ...shell,
    AWS_REGION: region,
    CARTWHEEL_TABLE: need(outputNames.tableName),
    CARTWHEEL_KMS_KEY_ID: need(outputNames.secretsKeyId),
    CARTWHEEL_PUBLIC_API_URL: api,
    CARTWHEEL_PUBLIC_FUNCTIONS_URL: outputs[outputNames.functionsUrl] ?? api.replace(/\/api\/v1\/$/, ''),
    CARTWHEEL_PUBLIC_SIGNIN_URL: outputs[outputNames.signinUrl] ?? api.replace(/\/api\/v1\/$/, '/signin/'),
    CARTWHEEL_PUBLIC_APPS_URL: `https://{account_id}.${outputs[outputNames.appsDomain] || outputs[outputNames.appsDistributionDomain] || 'apps.example.com'}`,
  });
}

/** Runs the command for `argv` (without node and script) and returns the bootstrap facts. */
export async function runCreateAccount(argv: string[]): Promise<AccountBootstrap> {
  const args = parseCreateAccountArgs(argv);
  let stopLocal: (() => Promise<void>) | undefined;
  let platform: Platform;
  let settings: PlatformConfig;
  if (args.target === 'cloud') {
    settings = await cloudSettings(args.stage);
    // The store and the cloud platform are built from this configuration.
    useConfig(settings);
    configureStore(settings);
    platform = cloudPlatform();
  } else {
    const { openLocalStore } = await import('../local/offline-store');
    const local = await openLocalStore(process.env.CARTWHEEL_DATA_DIR || './.data', Number(process.env.PORT || 4000));
    stopLocal = local.close;
    platform = local.platform;
    settings = local.settings;
  }
  try {
    const result = await createAccount({
      company: args.company,
      email: args.email,
      ...(args.userId ? { userId: args.userId } : {}),
      ...(args.password !== undefined ? { password: args.password } : {}),
    }, platform, settings.publicUrls);
    return result;
  } finally {
    await stopLocal?.();
  }
}

/**
 * Runs the command for `argv` and answers what it prints: the whole document, or, when the
 * secrets go to a file, only the account id and the file. The file is made before the account
 * (a refused target costs no account) and removed again if the account could not be created.
 */
export async function runCreateAccountCommand(argv: string[]): Promise<string> {
  const target = parseCreateAccountArgs(argv).secretsTo ?? { kind: 'stdout' };
  if (target.kind === 'stdout') return `${JSON.stringify(await runCreateAccount(argv), null, 2)}\n`;
  const file: SecretsSink = target.kind === 'file' ? await createSecretsFile(target.path) : await createSecretsManagerSink(target.name);
  let result: AccountBootstrap;
  try {
    result = await runCreateAccount(argv);
  } catch (error) {
    await file.discard();
    throw error;
  }
  try {
    await file.write(result);
  } catch (error) {
    // Not printed instead: the operator chose not to have them on a terminal. The owner's password can be reset.
    throw new Error(`account ${result.account_id} was created, but its secrets could not be written to ${file.where}: ${(error as Error).message}`);
  }
  return `${JSON.stringify(secretsReceipt(result, file), null, 2)}\n`;
}

// Run only when executed as a script, so tests can import the functions above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCreateAccountCommand(process.argv.slice(2)).then(
    (printed) => {
      process.stdout.write(printed);
      process.exit(0);
    },
    (error: unknown) => {
      const message = error instanceof ApiError ? `${error.code}: ${error.message}` : (error as Error).message;
      process.stderr.write(`account:create failed: ${message}\n`);
      process.exit(1);
    },
  );
}
