/**
 * The cdk-nag findings (AwsSolutions and Serverless packs) the platform accepts, each with its
 * reason, recorded on the construct it concerns (CDK's `Validations.acknowledge`, which the
 * packs read) and never on the whole stack when a narrower scope exists.
 * test/infra/operations.test.ts runs both packs and fails on any finding not acknowledged here.
 *
 * Per-function findings are derived from the function's grants (the prefixes it may touch),
 * so a new module's family is acknowledged for exactly what it was granted, and a grant
 * nobody reviewed (a new kind of wildcard) still fails the test.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { PlatformFunction, type PlatformResources } from './platform-function';
import type { FamilyGrants } from '../../shared/app/routes';

/** Records `rule` as accepted on `scope` and everything under it, for `reason`. */
export function acknowledge(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: rule, reason });
}

/** The finding id of a wildcard resource under a bucket (`Resource::<Logical.Arn>/prefix*`). */
function bucketPrefixFinding(bucket: s3.IBucket, prefix: string): string {
  const stack = Stack.of(bucket);
  const logicalId = stack.getLogicalId(bucket.node.defaultChild as never);
  return `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/${prefix}*]`;
}

/** What every platform function accepts, and what its grants make it accept. */
export function acknowledgeFunction(fn: PlatformFunction, grants: FamilyGrants, resources: PlatformResources, options: { tracing: boolean }): void {
  const runtime = 'Node.js 22 is the runtime the code and its native modules (sharp) are built and tested for (package.json engines, cdk.json useLatestRuntimeVersion=false); moving to a newer one is a reviewed change, not a silent one.';
  acknowledge(fn, 'AwsSolutions-L1', runtime);
  acknowledge(fn, 'Serverless-LambdaLatestVersion', runtime);
  acknowledge(
    fn,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'CloudWatch Logs writes only (CreateLogGroup, CreateLogStream, PutLogEvents), the standard policy of a Lambda function that logs.',
  );
  acknowledge(
    fn,
    'Serverless-LambdaDLQ',
    'No asynchronous invocations need one: HTTP functions are called synchronously by API Gateway, queue consumers fail over to their queue\'s dead-letter queue, and the scheduled sweep\'s work lives in due-work records the next run picks up.',
  );
  if (options.tracing) {
    // Only the statement CDK adds for active tracing has `*` (test/infra/iam.test.ts holds platform services to named resources).
    acknowledge(fn, 'AwsSolutions-IAM5[Resource::*]', 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so their statement names `*`.');
  }
  if (!options.tracing) acknowledge(fn, 'Serverless-LambdaTracing', 'Tracing is opt-in (context tracing=true): bench/observability.ts measures what the Tracer adds to a cold start; docs/operations.md says when to turn it on.');
  for (const grant of grants.objects ?? []) {
    const bucket = grant.bucket === 'apps' ? resources.appsBucket : resources.functionsBucket;
    acknowledge(fn, bucketPrefixFinding(bucket, grant.prefix), `Objects under the ${grant.prefix} prefix of the ${grant.bucket} bucket only: object keys carry ids unknown at deploy time.`);
  }
  if (grants.functions === 'manage') {
    acknowledge(fn, bucketPrefixFinding(resources.functionsBucket, 'deployed/'), 'Staged hosted-function packages under deployed/ only: written, read by Lambda with the caller\'s rights, then deleted.');
  }
  if (grants.functions && resources.hostedFunctions) {
    acknowledge(
      fn,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:function:${resources.hostedFunctions.prefix}-*]`,
      'Customer Lambdas are created at run time under the stage\'s name prefix; invoke grants also require the cartwheel:platform tag. The platform\'s own functions do not match the prefix.',
    );
  }
}

/** Findings on the stack's other resources, each on its construct. */
export interface StackFindingScopes {
  api: IConstruct;
  apiHasAuthorizer: false;
  distribution: IConstruct;
  /** The distribution has a web ACL (context waf / wafWebAclArn). */
  waf: boolean;
  /** The distribution has a custom domain and certificate (TLS 1.2 minimum). */
  appsCustomDomain: boolean;
  edgeSecret: IConstruct;
  deadLetterQueues: readonly IConstruct[];
  consumerMappings: readonly IConstruct[];
  scheduleRules: readonly IConstruct[];
  alarmSubscription: IConstruct;
  backupRole: IConstruct;
  hostedFunctionsRole: IConstruct;
  hostedFunctionsPrefix: string;
}

/** Acknowledges the findings of the stack's non-function resources (see the reasons). */
export function acknowledgeStackFindings(scopes: StackFindingScopes): void {
  acknowledge(scopes.api, 'AwsSolutions-APIG4', 'Every route authenticates in its handler (API tokens, sign-in cookies, hosted functions\' own rules; public routes are public by the contract); an API Gateway authorizer would duplicate that and cannot express per-route permissions.');
  acknowledge(scopes.distribution, 'AwsSolutions-CFR1', 'A commerce platform sells worldwide; geo restrictions are a merchant decision the platform does not make.');
  if (!scopes.waf) acknowledge(scopes.distribution, 'AwsSolutions-CFR2', 'The web ACL is opt-in (context waf=true in us-east-1, or wafWebAclArn): it costs money per request and rule, and the API enforces per-token and per-IP rate limits itself.');
  if (!scopes.appsCustomDomain) acknowledge(scopes.distribution, 'AwsSolutions-CFR4', 'Without a custom domain the distribution serves *.cloudfront.net, whose certificate and TLS policy CloudFront sets; with one (context appsDomain) the minimum is TLS 1.2 (2021).');
  acknowledge(scopes.edgeSecret, 'AwsSolutions-SMG4', 'The edge secret is read at deploy time into the CloudFront origin header and the functions\' environment; a rotation is a redeploy (docs/operations.md), which a rotation Lambda could not do atomically.');
  for (const queue of scopes.deadLetterQueues) acknowledge(queue, 'Serverless-SQSRedrivePolicy', 'A dead-letter queue is the end of the line: its messages are inspected and redriven by an operator (docs/operations.md), never re-queued automatically.');
  for (const mapping of scopes.consumerMappings) acknowledge(mapping, 'Serverless-LambdaEventSourceMappingDestination', 'Failed messages move to the queue\'s dead-letter queue (redrive policy), which an alarm watches.');
  for (const rule of scopes.scheduleRules) acknowledge(rule, 'Serverless-EventBusDLQ', 'The sweep runs every minute and its work persists in due-work records: a lost invocation is the next minute\'s run, and the lag alarm fires if runs stop.');
  acknowledge(scopes.alarmSubscription, 'Serverless-SNSRedrivePolicy', 'An email subscription: SNS retries delivery itself, and the alarm state stays visible on the dashboard.');
  for (const policy of ['service-role/AWSBackupServiceRolePolicyForBackup', 'service-role/AWSBackupServiceRolePolicyForRestores', 'AWSBackupServiceRolePolicyForS3Backup', 'AWSBackupServiceRolePolicyForS3Restore']) {
    acknowledge(scopes.backupRole, `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policy}]`, 'AWS Backup\'s own service role policies, the documented way to let it back up and restore DynamoDB and S3.');
  }
  acknowledge(
    scopes.hostedFunctionsRole,
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/lambda/${scopes.hostedFunctionsPrefix}-*]`,
    'Customer functions write only their own logs, whose names are known at run time (the stage\'s prefix).',
  );
}

/** Every platform function of a stack, found in its tree. */
export function platformFunctionsOf(scope: IConstruct): PlatformFunction[] {
  return scope.node.findAll().filter((construct): construct is PlatformFunction => construct instanceof PlatformFunction);
}
