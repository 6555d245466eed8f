/**
 * The Cartwheel stack: data (table, buckets, key), work queues, the HTTP API with its
 * family functions, and the CloudFront distribution for hosted apps with its pointer store.
 *
 * The queue table, families and routes are props so tests can synthesize variants
 * (a queue with a consumer, a read-only family); app.ts passes the real tables.
 */
import { CfnCondition, CfnOutput, CfnParameter, Fn, Lazy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { QueueDefinition } from '../../shared/app/queues';
import type { FamilyDefinition } from '../../shared/app/routes';
import { type ApiCustomDomain, type ApiRoute, type ApiThrottle, DOCS_FAMILY, PlatformApi } from './api';
import { DataStore } from './data';
import { HostedFunctions } from './hosted-functions';
import { type AppsCustomDomain, AppsHosting, type AppsHostingProps } from './hosting';
import { outputNames, pascalCase, queueUrlOutput } from './outputs';
import type { PlatformResources } from './platform-function';
import { acknowledgeFunction, acknowledgeStackFindings, platformFunctionsOf } from './nag-acknowledgements';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Monitoring } from './monitoring';
import { QueueConsumer, WorkQueues } from './work-queues';
import { ScheduledJobs } from './scheduled-jobs';
import { schedules, type ScheduleDefinition } from '../../shared/app/schedules';

/** What varies between Cartwheel stacks: the stage and the tables the stack is built from. */
export interface CartwheelStackProps extends StackProps {
  /** Stage name (`dev`, `prod`, ...), used in resource names and tags. */
  stage: string;
  queues: readonly QueueDefinition[];
  families: Readonly<Record<string, FamilyDefinition>>;
  routes: readonly ApiRoute[];
  /** Family serving the API's `$default` route. */
  fallbackFamily: string;
  /** @default 1000 requests/s, burst 2000 */
  throttle?: ApiThrottle;
  /** @default none: apps are reachable on the distribution's own domain only */
  appsCustomDomain?: AppsCustomDomain;
  /** @default the table in shared/app/schedules.ts */
  schedules?: readonly ScheduleDefinition[];
  /** Default of the AlarmEmail parameter (context `alarmEmail`). */
  alarmEmail?: string;
  /** The API on its own domain (context `apiDomain` + `apiCertificateArn`). @default the execute-api address */
  apiCustomDomain?: ApiCustomDomain;
  /** A web ACL on the distribution (context `waf=true`, or `wafWebAclArn`). @default none */
  waf?: AppsHostingProps['waf'];
  /** A backup vault in another region each daily backup is copied to (context `backupCopyVaultArn`). @default no copy */
  backupCopyVaultArn?: string;
  /** Powertools Tracer (X-Ray) on every function (context `tracing=true`). @default off (bench/observability.ts) */
  tracing?: boolean;
  /**
   * Most concurrent invocations one queue's consumer may take (the event source's maximum
   * concurrency), so a burst of deliveries cannot use up the account's concurrency that
   * checkout needs. @default DEFAULT_CONSUMER_MAX_CONCURRENCY (50)
   */
  consumerMaxConcurrency?: number;
  /**
   * Family whose function serves the platform-owned app files and bucket misses behind the CDN.
   * @default 'hosting' (a stack whose families lack it serves app files from the bucket alone)
   */
  hostingFamily?: string;
}

/**
 * Most concurrent batches per queue consumer by default: with two queues, 100 of an account's
 * default 1000 concurrent executions, so a delivery burst leaves the rest to checkout, while
 * slow receivers (issue 22) still get far more parallel batches than a backlog usually needs.
 */
export const DEFAULT_CONSUMER_MAX_CONCURRENCY = 50;

/** Stage-wide API throttling default: a cost ceiling far above any single client's limit. */
export const defaultThrottle: ApiThrottle = { rateLimit: 1000, burstLimit: 2000 };

/** Rate limit format that shared/core/config.ts parseRateLimit accepts, e.g. `100/200`. */
const rateLimitPattern = '^\\d+(\\.\\d+)?/\\d+$';

/** Every AWS resource of one Cartwheel stage. */
export class CartwheelStack extends Stack {
  readonly data: DataStore;
  readonly workQueues: WorkQueues;
  readonly api: PlatformApi;
  readonly hosting: AppsHosting;
  readonly appPointers: cloudfront.KeyValueStore;
  readonly hostedFunctions: HostedFunctions;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: CartwheelStackProps) {
    super(scope, id, props);
    Tags.of(this).add('cartwheel:stage', props.stage);

    const emailFrom = new CfnParameter(this, 'EmailFrom', {
      type: 'String',
      default: 'no-reply@example.com',
      description: 'Sender address of platform email (must be a verified SES identity)',
    });
    const ratePerToken = new CfnParameter(this, 'RatePerToken', {
      type: 'String',
      default: '100/200',
      allowedPattern: rateLimitPattern,
      description: 'Per-token rate limit as <per second>/<burst>',
    });
    const ratePerIp = new CfnParameter(this, 'RatePerIp', {
      type: 'String',
      default: '10/20',
      allowedPattern: rateLimitPattern,
      description: 'Per-IP rate limit for unauthenticated calls as <per second>/<burst>',
    });
    const appsDomain = new CfnParameter(this, 'AppsDomain', {
      type: 'String',
      // The distribution's own domain is only known after deploy; set this on update.
      default: props.appsCustomDomain?.domainName ?? '',
      description: 'Domain under which hosted apps live, as <account_id>.<AppsDomain>',
    });

    const logLevel = new CfnParameter(this, 'LogLevel', {
      type: 'String',
      default: 'INFO',
      allowedValues: ['DEBUG', 'INFO', 'WARN', 'ERROR'],
      description: 'Powertools log level of every function (INFO writes an access line per request; WARN and above do not)',
    });
    const logRetentionDays = new CfnParameter(this, 'LogRetentionDays', {
      type: 'Number',
      default: 30,
      allowedValues: ['1', '3', '5', '7', '14', '30', '60', '90', '120', '150', '180', '365', '400', '545', '731', '1096', '1827', '2192', '2557', '2922', '3288', '3653'],
      description: 'Days the functions\' and the API\'s log groups keep their lines',
    });

    this.data = new DataStore(this, 'Data', { stage: props.stage, ...(props.backupCopyVaultArn ? { backupCopyVaultArn: props.backupCopyVaultArn } : {}) });
    this.workQueues = new WorkQueues(this, 'Queues', { queues: props.queues });

    // Shared by CloudFront (origin header) and the functions (expected value), so handlers
    // trust X-Forwarded-Host only on requests that really came through the distribution.
    const edgeSecret = new secretsmanager.Secret(this, 'EdgeSecret', {
      description: `Cartwheel ${props.stage}: value of the x-cartwheel-edge origin header`,
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
    });
    const edgeSecretValue = edgeSecret.secretValue.unsafeUnwrap();

    // Functions learn the API's public URLs from its endpoint, but the API construct creates
    // those functions; a lazy value breaks the cycle and resolves once the API exists.
    let api: PlatformApi | undefined;
    const endpoint = Lazy.string({
      produce: () => {
        if (!api) throw new Error('API endpoint read before the API was created');
        return props.apiCustomDomain ? `https://${props.apiCustomDomain.domainName}` : api.httpApi.apiEndpoint;
      },
    });
    // Image links point at the apps distribution (its `images/*` behaviour), which is built
    // after the functions; the same lazy resolution as the endpoint.
    let hosting: AppsHosting | undefined;
    const imagesUrl = Lazy.string({
      produce: () => {
        if (!hosting) throw new Error('Images URL read before the apps distribution was created');
        return `https://${hosting.distribution.distributionDomainName}/`;
      },
    });
    // Where an account's apps live (`app_url`, shared/core/config.ts publicUrls.appsTemplate): under the
    // AppsDomain parameter when it is set (a custom domain, or the value an operator set on
    // update), else under the apps distribution's own domain, the same choice the account
    // bootstrap (infra/accounts/create-account.ts) makes from the stack outputs.
    const hasAppsDomain = new CfnCondition(this, 'HasAppsDomain', { expression: Fn.conditionNot(Fn.conditionEquals(appsDomain.valueAsString, '')) });
    const appsUrlTemplate = Lazy.string({
      produce: () => {
        if (!hosting) throw new Error('Apps URL read before the apps distribution was created');
        return `https://{account_id}.${Fn.conditionIf(hasAppsDomain.logicalId, appsDomain.valueAsString, hosting.distribution.distributionDomainName).toString()}`;
      },
    });
    // The CDN's copy of the alias pointers: read by the apps edge function, written by the
    // functions granted `edgePointers` (deploy, rollback, alias changes).
    this.appPointers = new cloudfront.KeyValueStore(this, 'AppPointers', {
      comment: `Cartwheel ${props.stage}: <account_id>/<alias> -> <app_id>/<version_id> of the served version`,
    });
    // The customer functions' execution role and name prefix (`functions` grants).
    this.hostedFunctions = new HostedFunctions(this, 'HostedFunctions', { stage: props.stage, functionsBucket: this.data.functionsBucket });
    const resources: PlatformResources = {
      table: this.data.table,
      secretsKey: this.data.secretsKey,
      functionsBucket: this.data.functionsBucket,
      appsBucket: this.data.appsBucket,
      appPointers: this.appPointers,
      queues: this.workQueues.queues(),
      hostedFunctions: this.hostedFunctions,
      shared: {
        emailFrom: emailFrom.valueAsString,
        ratePerToken: ratePerToken.valueAsString,
        ratePerIp: ratePerIp.valueAsString,
        appsDomain: appsDomain.valueAsString,
        edgeSecret: edgeSecretValue,
        publicApiUrl: `${endpoint}/api/v1/`,
        publicFunctionsUrl: endpoint,
        publicSigninUrl: `${endpoint}/signin/`,
        publicImagesUrl: imagesUrl,
        publicAppsUrl: appsUrlTemplate,
        logLevel: logLevel.valueAsString,
        logRetentionDays: logRetentionDays.valueAsNumber,
        tracing: props.tracing ?? false,
      },
    };
    api = new PlatformApi(this, 'Api', {
      families: props.families,
      routes: props.routes,
      fallbackFamily: props.fallbackFamily,
      resources,
      stage: props.stage,
      throttle: props.throttle ?? defaultThrottle,
      logRetentionDays: logRetentionDays.valueAsNumber,
      ...(props.apiCustomDomain ? { customDomain: props.apiCustomDomain } : {}),
    });
    this.api = api;

    for (const work of this.workQueues.byName.values()) {
      if (work.definition.consumer) {
        new QueueConsumer(this, `${pascalCase(work.definition.name)}Consumer`, { work, resources, maxConcurrency: props.consumerMaxConcurrency ?? DEFAULT_CONSUMER_MAX_CONCURRENCY });
      }
    }

    new ScheduledJobs(this, 'Schedules', { schedules: props.schedules ?? schedules, resources });

    this.hosting = hosting = new AppsHosting(this, 'Hosting', {
      appsBucket: this.data.appsBucket,
      httpApi: this.api.httpApi,
      appPointers: this.appPointers,
      servingFunction: this.api.functions.get(props.hostingFamily ?? 'hosting')?.function,
      edgeSecret: edgeSecretValue,
      customDomain: props.appsCustomDomain,
      ...(props.apiCustomDomain ? { apiDomainName: props.apiCustomDomain.domainName } : {}),
      logBucket: this.data.logsBucket,
      ...(props.waf ? { waf: props.waf } : {}),
    });

    // Every platform function, found in the tree (families, consumers, jobs: whatever modules added).
    const platformFunctions = platformFunctionsOf(this);
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: props.stage,
      functions: platformFunctions,
      httpApi: this.api.httpApi,
      table: this.data.table,
      workQueues: [...this.workQueues.byName.values()],
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });

    // The cdk-nag findings accepted, each with its reason (test/infra/operations.test.ts runs the packs).
    for (const fn of platformFunctions) acknowledgeFunction(fn, fn.grants, resources, { tracing: props.tracing ?? false });
    const all = this.node.findAll();
    acknowledgeStackFindings({
      api: this.api,
      apiHasAuthorizer: false,
      distribution: this.hosting.distribution,
      waf: props.waf !== undefined,
      appsCustomDomain: props.appsCustomDomain !== undefined,
      edgeSecret,
      deadLetterQueues: [...this.workQueues.byName.values()].map((work) => work.deadLetterQueue),
      consumerMappings: all.filter((construct) => construct instanceof lambda.CfnEventSourceMapping),
      scheduleRules: all.filter((construct) => construct instanceof events.Rule),
      alarmSubscription: this.monitoring.emailSubscription,
      backupRole: this.data.backupRole,
      hostedFunctionsRole: this.hostedFunctions.executionRole,
      hostedFunctionsPrefix: this.hostedFunctions.prefix,
    });

    // The construct id gets a suffix (a parameter may share the name); `key` is the output name.
    const output = (name: string, value: string, description: string): void => {
      new CfnOutput(this, `${name}Output`, { key: name, value, description });
    };
    output(outputNames.apiUrl, `${endpoint}/api/v1/`, 'Base URL of the platform API');
    output(outputNames.functionsUrl, endpoint, 'Base URL of hosted functions (/func/v1/<id>)');
    output(outputNames.signinUrl, `${endpoint}/signin/`, 'Sign-in page');
    if (props.families[DOCS_FAMILY]) output(outputNames.docsUrl, `${endpoint}/docs`, 'API reference (rendered from /api/v1/openapi.json)');
    output(outputNames.appsDistributionDomain, this.hosting.distribution.distributionDomainName, 'CloudFront domain serving hosted apps');
    output(outputNames.imagesUrl, imagesUrl, 'Root of the public image files (images/<sha256>/<image_id>/<size>.<ext>)');
    if (props.appsCustomDomain) output(outputNames.appsDomain, appsDomain.valueAsString, 'Domain under which hosted apps live');
    output('AlarmTopicArn', this.monitoring.topic.topicArn, 'SNS topic every alarm notifies');
    output('DashboardName', this.monitoring.dashboard.dashboardName, 'CloudWatch dashboard');
    output(outputNames.tableName, this.data.table.tableName, 'DynamoDB table');
    output(outputNames.functionsBucketName, this.data.functionsBucket.bucketName, 'Hosted-function code bucket');
    output(outputNames.appsBucketName, this.data.appsBucket.bucketName, 'Hosted-app bucket');
    output(outputNames.secretsKeyId, this.data.secretsKey.keyId, 'KMS key sealing secrets');
    output(outputNames.appPointersArn, this.appPointers.keyValueStoreArn, 'CloudFront KeyValueStore of the alias pointers (<account_id>/<alias>)');
    for (const [name, work] of this.workQueues.byName) {
      output(queueUrlOutput(name), work.queue.queueUrl, `Queue: ${work.definition.description}`);
    }
  }
}
