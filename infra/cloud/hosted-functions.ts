/**
 * Hosted functions in the cloud (functions.md §10): the one execution role every customer
 * Lambda runs with, the stage's name prefix those Lambdas share, and the clean-up of packages
 * the runner stages in the functions bucket. The customer Lambdas themselves are made at run time
 * by the functions module (shared/platform/adapters/lambda-functions.ts), never by the stack.
 *
 * The role may write the logs of `<prefix>-*` functions and nothing else: no managed policies,
 * nothing on the table, queues, buckets, keys or other functions, and no network attachment
 * (the runner creates functions without a VPC).
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { MAX_FUNCTIONS_PREFIX_LENGTH, STAGED_PACKAGES_PREFIX } from '../../shared/platform/adapters/lambda-functions';

/** Options of the hosted functions' shared parts. */
export interface HostedFunctionsProps {
  /** Stage name: the function name prefix is derived from it. */
  stage: string;
  /** The functions bucket, where the runner stages deployment packages under `deployed/`. */
  functionsBucket: s3.Bucket;
}

/**
 * The prefix of every customer Lambda of a stage: short (names must fit 64 characters) and unlike
 * the platform's own function names (`Cartwheel-<stage>-...`), so `function:<prefix>-*` grants
 * reach customer functions only.
 */
export function functionsPrefixOf(stage: string): string {
  const prefix = `cwfn-${stage}`;
  if (prefix.length > MAX_FUNCTIONS_PREFIX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(prefix)) {
    throw new Error(`Stage "${stage}" makes the hosted functions prefix "${prefix}", which must be letters, digits, - or _ and at most ${MAX_FUNCTIONS_PREFIX_LENGTH} characters`);
  }
  return prefix;
}

/** The shared execution role of customer functions and the prefix that names them. */
export class HostedFunctions extends Construct {
  readonly executionRole: iam.Role;
  /** Name prefix (and `cartwheel:platform` tag) of every customer Lambda of this stage. */
  readonly prefix: string;
  /** `arn:aws:lambda:<region>:<account>:function:<prefix>-*`: every customer Lambda and nothing else. */
  readonly functionArns: string;

  constructor(scope: Construct, id: string, props: HostedFunctionsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.prefix = functionsPrefixOf(props.stage);
    this.functionArns = stack.formatArn({ service: 'lambda', resource: 'function', resourceName: `${this.prefix}-*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });

    this.executionRole = new iam.Role(this, 'ExecutionRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Cartwheel ${props.stage}: runs merchants' hosted functions; may only write their logs`,
      inlinePolicies: {
        logs: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: `/aws/lambda/${this.prefix}-*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
            }),
          ],
        }),
      },
    });

    // Lambda keeps its own copy of a package once it serves it and the runner then deletes the
    // staged one; this removes what a crashed deployment left (the bucket is versioned).
    props.functionsBucket.addLifecycleRule({
      id: 'staged-function-packages',
      prefix: STAGED_PACKAGES_PREFIX,
      expiration: Duration.days(2),
      noncurrentVersionExpiration: Duration.days(1),
    });
  }
}

/** What a `functions: 'manage'` grant allows on `<prefix>-*` functions. */
export const MANAGE_FUNCTIONS_ACTIONS = [
  'lambda:CreateFunction',
  'lambda:UpdateFunctionCode',
  'lambda:UpdateFunctionConfiguration',
  'lambda:GetFunction',
  'lambda:GetFunctionConfiguration',
  'lambda:DeleteFunction',
  'lambda:TagResource',
  'lambda:InvokeFunction',
] as const;
