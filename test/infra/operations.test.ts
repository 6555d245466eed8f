/**
 * Operating the stack (issue 28), asserted on templates synthesized offline the way `cdk synth`
 * builds them from context (infra/cloud/context.ts): the default context and a fully
 * configured one (custom API and apps domains, alarm email, WAF, backup copy, tracing).
 * Each is synthesized once; every deliverable is asserted against both where it applies.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds } from '../../infra/cloud/monitoring';
import { API_ACCESS_LOG_FORMAT } from '../../infra/cloud/api';
import { contextNames, propsFromContext } from '../../infra/cloud/context';
import { BACKUP_RETENTION_DAYS } from '../../infra/cloud/data';
import { DEFAULT_CONSUMER_MAX_CONCURRENCY } from '../../infra/cloud/stack';
import { platformFunctionsOf } from '../../infra/cloud/nag-acknowledgements';
import { queues } from '../../shared/app/queues';
import { tableDefinition } from '../../shared/store/table';
import { acknowledgements, allFindingCounts, unacknowledgedFindings } from '../support/cdk-nag';
import { type Synthesized, type TemplateJson, allowedActions, functionWithRole, referencedId, resourcesOfType, roleStatements, synthesizeContext, synthTimeout } from './synthesize';

/** The context of a fully configured production stage. */
export const fullContext = {
  stage: 'prod',
  apiDomain: 'api.shop.example',
  apiCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/11111111-2222-3333-4444-555555555555',
  appsDomain: 'apps.shop.example',
  appsCertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/66666666-7777-8888-9999-000000000000',
  alarmEmail: 'ops@shop.example',
  waf: 'true',
  wafRatePer5Minutes: '3000',
  backupCopyVaultArn: 'arn:aws:backup:eu-central-1:111111111111:backup-vault:cartwheel-copy',
  tracing: 'true',
  consumerMaxConcurrency: '10',
} satisfies Partial<Record<(typeof contextNames)[number], string>>;

/** CloudFormation's hard limit is 500; the test holds 100 in reserve for what modules add. */
const RESOURCE_LIMIT = 400;

const alarmsOf = (json: TemplateJson) => resourcesOfType(json, 'AWS::CloudWatch::Alarm').map((id) => ({ id, ...json.Resources[id]!.Properties! }) as { id: string } & Record<string, any>);
const topicOf = (json: TemplateJson) => resourcesOfType(json, 'AWS::SNS::Topic')[0]!;
const descriptions = (json: TemplateJson) => alarmsOf(json).map((alarm) => alarm.AlarmDescription as string);

describe.each([
  ['default context', {}],
  ['fully configured context', fullContext],
] as const)('operations, %s', (_name, context) => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesizeContext(context);
  }, synthTimeout);

  describe('alarms', () => {
    it('every alarm notifies the one topic on alarm and on recovery', () => {
      const topic = topicOf(synth.json);
      const alarms = alarmsOf(synth.json);
      expect(alarms.length).toBeGreaterThan(10);
      for (const alarm of alarms) {
        expect(alarm.AlarmActions, alarm.id).toEqual([{ Ref: topic }]);
        expect(alarm.OKActions, alarm.id).toEqual([{ Ref: topic }]);
      }
    });

    it('the topic emails the AlarmEmail parameter (the alarmEmail context is its default) when it is set', () => {
      const subscription = resourcesOfType(synth.json, 'AWS::SNS::Subscription').map((id) => synth.json.Resources[id] as { Properties: Record<string, unknown>; Condition?: string })[0]!;
      expect(subscription.Properties).toMatchObject({ Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' }, TopicArn: { Ref: topicOf(synth.json) } });
      expect(subscription.Condition).toBeDefined();
      expect(synth.json.Parameters!.AlarmEmail!.Default).toBe('alarmEmail' in context ? context.alarmEmail : '');
    });

    it('covers errors and throttles of every function group, each function in exactly one alarm of each', () => {
      const functions = platformFunctionsOf(synth.stack);
      const groups = new Set(functions.map((fn) => fn.role.split(':')[0]!));
      expect([...groups].sort()).toEqual(['consumer', 'family', 'schedule']);
      for (const metric of ['Errors', 'Throttles']) {
        const alarms = alarmsOf(synth.json).filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes(`"MetricName":"${metric}"`) && JSON.stringify(alarm.Metrics).includes('AWS/Lambda'));
        const watched = alarms.flatMap((alarm) =>
          (alarm.Metrics as { MetricStat?: { Metric: { Dimensions: { Value: unknown }[] } } }[]).filter((query) => query.MetricStat).map((query) => referencedId(query.MetricStat!.Metric.Dimensions[0]!.Value)),
        );
        const ids = functions.map((fn) => synth.stack.getLogicalId(fn.function.node.defaultChild as never));
        expect(watched.sort()).toEqual(ids.sort());
        for (const alarm of alarms) expect((alarm.Metrics as unknown[]).length).toBeLessThanOrEqual(11);
      }
    });

    it('covers the API (5xx rate, p99 latency), the table (throttles, system errors), the sweep and hosted functions', () => {
      expect(descriptions(synth.json)).toEqual(
        expect.arrayContaining([
          'API 5xx answers, % of requests',
          'API p99 latency (ms)',
          'DynamoDB throttled reads and writes',
          'DynamoDB system errors',
          'Due-work sweep lag (ms); missing = the sweep is not running',
          'Hosted function invocations that failed',
        ]),
      );
      const latency = alarmsOf(synth.json).find((alarm) => alarm.AlarmDescription === 'API p99 latency (ms)')!;
      expect(latency).toMatchObject({ ExtendedStatistic: 'p99', Threshold: alarmThresholds.apiP99LatencyMs, Namespace: 'AWS/ApiGateway' });
      const sweep = alarmsOf(synth.json).find((alarm) => alarm.AlarmDescription!.startsWith('Due-work sweep lag'))!;
      expect(sweep).toMatchObject({ Namespace: 'Cartwheel', MetricName: 'DueWorkLagMs', TreatMissingData: 'breaching', Statistic: 'Maximum' });
      const systemErrors = alarmsOf(synth.json).find((alarm) => alarm.AlarmDescription === 'DynamoDB system errors')!;
      expect(JSON.stringify(systemErrors.Metrics)).toContain('SystemErrors');
      // The sweep's own failures: the schedule group's error alarm watches the due-work function.
      const sweepFunction = functionWithRole(synth.json, 'schedule:due-work');
      expect(alarmsOf(synth.json).some((alarm) => alarm.AlarmDescription === 'Lambda errors: schedule functions' && JSON.stringify(alarm.Metrics).includes(sweepFunction))).toBe(true);
    });

    it('covers every queue: oldest message age and dead-letter depth', () => {
      for (const queue of queues) {
        expect(descriptions(synth.json)).toContain(`Oldest message (s): ${queue.name}`);
        expect(descriptions(synth.json).some((text) => text.startsWith(`Messages in the dead-letter queue of ${queue.name}`))).toBe(true);
      }
    });

    it('puts every alarm on the dashboard', () => {
      const dashboards = resourcesOfType(synth.json, 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const body = JSON.stringify(synth.json.Resources[dashboards[0]!]!.Properties!.DashboardBody);
      for (const alarm of alarmsOf(synth.json)) expect(body, alarm.id).toContain(alarm.id);
      for (const metric of ['Checkouts', 'PaymentOutcomes', 'WebhookDeliveries', 'LicenseDeliveries']) expect(body).toContain(metric);
    });
  });

  describe('logs', () => {
    it('gives the API stage a JSON access log with the request id and route, never the path or query', () => {
      const stage = synth.json.Resources[resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Stage')[0]!]!.Properties!;
      expect(referencedId(stage.AccessLogSettings.DestinationArn)).toBeDefined();
      const format = JSON.parse(stage.AccessLogSettings.Format as string) as Record<string, string>;
      expect(format).toEqual(API_ACCESS_LOG_FORMAT);
      expect(Object.values(format)).not.toEqual(expect.arrayContaining(['$context.path']));
      expect(stage.AccessLogSettings.Format).not.toMatch(/querystring|\$context\.path|authorizer/i);
    });

    it('takes log level and retention from parameters, for every function and the API log group', () => {
      expect(synth.json.Parameters!.LogLevel!.Default).toBe('INFO');
      expect(synth.json.Parameters!.LogRetentionDays!.Default).toBe(30);
      for (const id of resourcesOfType(synth.json, 'AWS::Logs::LogGroup')) {
        expect(synth.json.Resources[id]!.Properties!.RetentionInDays, id).toEqual({ Ref: 'LogRetentionDays' });
      }
      for (const fn of platformFunctionsOf(synth.stack)) {
        const id = synth.stack.getLogicalId(fn.function.node.defaultChild as never);
        expect(synth.json.Resources[id]!.Properties!.Environment.Variables, id).toMatchObject({ POWERTOOLS_LOG_LEVEL: { Ref: 'LogLevel' }, POWERTOOLS_METRICS_NAMESPACE: 'Cartwheel' });
      }
    });
  });

  describe('least privilege', () => {
    const everyStatement = (json: TemplateJson) =>
      resourcesOfType(json, 'AWS::IAM::Policy').flatMap((id) => json.Resources[id]!.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);

    it('lets no role Scan the table or delete object versions', () => {
      for (const statement of everyStatement(synth.json)) {
        const actions = [statement.Action].flat();
        expect(actions).not.toContain('dynamodb:Scan');
        expect(actions.filter((action) => /^s3:DeleteObject(Version|\*)/.test(action) || action === 's3:*')).toEqual([]);
        expect(actions.filter((action) => action.startsWith('dynamodb:') && action.includes('*'))).toEqual([]);
      }
    });

    it('grants the table per index by name, and KMS only Encrypt and Decrypt', () => {
      for (const statement of everyStatement(synth.json)) {
        const actions = [statement.Action].flat();
        if (actions.some((action) => action.startsWith('dynamodb:'))) {
          const resources = JSON.stringify(statement.Resource);
          expect(resources).not.toContain('index/*');
          for (const index of tableDefinition.indexes) expect(resources).toContain(`/index/${index.name}`);
        }
        const kms = actions.filter((action) => action.startsWith('kms:'));
        for (const action of kms) expect(['kms:Encrypt', 'kms:Decrypt']).toContain(action);
      }
    });

    it('lets email senders send only from the configured sender identity', () => {
      const senders = platformFunctionsOf(synth.stack).filter((fn) => fn.grants.email);
      expect(senders.length).toBeGreaterThan(0);
      for (const fn of senders) {
        const id = synth.stack.getLogicalId(fn.function.node.defaultChild as never);
        const ses = roleStatements(synth.json, id).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('ses:')));
        expect(ses).toHaveLength(1);
        const text = JSON.stringify(ses[0]);
        expect(text).toContain('EmailFrom');
        expect(text).not.toContain('identity/*');
        expect((ses[0] as { Condition?: unknown }).Condition).toEqual({ StringEquals: { 'ses:FromAddress': { Ref: 'EmailFrom' } } });
      }
      for (const fn of platformFunctionsOf(synth.stack).filter((candidate) => !candidate.grants.email)) {
        expect(allowedActions(synth.json, synth.stack.getLogicalId(fn.function.node.defaultChild as never)).filter((action) => action.startsWith('ses:'))).toEqual([]);
      }
    });

    it('passes the AwsSolutions and Serverless cdk-nag packs: every finding acknowledged in code with a reason', () => {
      const left = unacknowledgedFindings(synth.stack);
      expect(left, JSON.stringify(left, null, 1)).toEqual([]);
      for (const entry of acknowledgements(synth.stack)) expect(entry.reason.length, `${entry.rule} at ${entry.path}`).toBeGreaterThan(40);
      // The figures the operations page reports (every one of them acknowledged above).
      console.info(`cdk-nag acknowledged findings (${_name}):`, JSON.stringify(allFindingCounts(synth.stack)));
    });
  });

  describe('room to grow', () => {
    it(`stays under ${RESOURCE_LIMIT} resources (CloudFormation allows 500)`, () => {
      const count = Object.keys(synth.json.Resources).length;
      console.info(`resources (${_name}): ${count}`);
      expect(count).toBeLessThanOrEqual(RESOURCE_LIMIT);
    });

    it('caps each queue consumer\'s concurrency so deliveries cannot take the concurrency checkout needs', () => {
      const mappings = resourcesOfType(synth.json, 'AWS::Lambda::EventSourceMapping');
      expect(mappings.length).toBe(queues.filter((queue) => queue.consumer).length);
      for (const id of mappings) {
        expect(synth.json.Resources[id]!.Properties!.ScalingConfig).toEqual({ MaximumConcurrency: 'consumerMaxConcurrency' in context ? Number(context.consumerMaxConcurrency) : DEFAULT_CONSUMER_MAX_CONCURRENCY });
      }
      // The decision recorded in docs/operations.md §3: a cap of 50 batches per consumer, and no
      // reserved concurrency anywhere (it would shrink the pool the API bursts into).
      expect(DEFAULT_CONSUMER_MAX_CONCURRENCY).toBe(50);
      for (const id of resourcesOfType(synth.json, 'AWS::Lambda::Function')) expect(synth.json.Resources[id]!.Properties!.ReservedConcurrentExecutions, id).toBeUndefined();
    });
  });

  describe('backups', () => {
    it('backs up the table and both buckets daily, kept 35 days', () => {
      const plan = synth.json.Resources[resourcesOfType(synth.json, 'AWS::Backup::BackupPlan')[0]!]!.Properties!.BackupPlan;
      expect(plan.BackupPlanRule).toHaveLength(1);
      const rule = plan.BackupPlanRule[0];
      expect(rule).toMatchObject({ ScheduleExpression: 'cron(0 3 * * ? *)', Lifecycle: { DeleteAfterDays: BACKUP_RETENTION_DAYS } });
      if ('backupCopyVaultArn' in context) {
        expect(rule.CopyActions).toEqual([{ DestinationBackupVaultArn: context.backupCopyVaultArn, Lifecycle: { DeleteAfterDays: BACKUP_RETENTION_DAYS } }]);
      } else {
        expect(rule.CopyActions).toBeUndefined();
      }
      const selection = synth.json.Resources[resourcesOfType(synth.json, 'AWS::Backup::BackupSelection')[0]!]!.Properties!.BackupSelection;
      const selected = JSON.stringify(selection.Resources);
      for (const id of [...resourcesOfType(synth.json, 'AWS::DynamoDB::Table')]) expect(selected).toContain(id);
      const dataBuckets = resourcesOfType(synth.json, 'AWS::S3::Bucket').filter((id) => synth.json.Resources[id]!.Properties!.VersioningConfiguration);
      expect(dataBuckets).toHaveLength(2);
      for (const id of dataBuckets) expect(selected).toContain(id);
    });

    it('expires noncurrent versions of both data buckets, and keeps access logs 90 days', () => {
      for (const id of resourcesOfType(synth.json, 'AWS::S3::Bucket')) {
        const properties = synth.json.Resources[id]!.Properties!;
        const rules = properties.LifecycleConfiguration.Rules as Record<string, unknown>[];
        if (properties.VersioningConfiguration) {
          expect(rules).toContainEqual(expect.objectContaining({ Id: 'noncurrent-versions', NoncurrentVersionExpiration: { NoncurrentDays: 30 } }));
          expect(properties.LoggingConfiguration.LogFilePrefix).toMatch(/^s3\//);
        } else {
          expect(rules).toContainEqual(expect.objectContaining({ ExpirationInDays: 90 }));
        }
      }
    });
  });

  describe('edge', () => {
    it('writes CloudFront access logs to the logs bucket', () => {
      const distribution = synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig;
      expect(distribution.Logging).toMatchObject({ Prefix: 'cloudfront/', IncludeCookies: false });
      expect(resourcesOfType(synth.json, 'AWS::S3::Bucket')).toContain(referencedId(distribution.Logging.Bucket));
    });

    it('serves links from the API\'s own domain when one is set, and disables the execute-api endpoint', () => {
      const api = synth.json.Resources[resourcesOfType(synth.json, 'AWS::ApiGatewayV2::Api')[0]!]!.Properties!;
      const urls = platformFunctionsOf(synth.stack).map((fn) => synth.json.Resources[synth.stack.getLogicalId(fn.function.node.defaultChild as never)]!.Properties!.Environment.Variables.CARTWHEEL_PUBLIC_API_URL);
      const origins = JSON.stringify(synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig.Origins);
      if ('apiDomain' in context) {
        expect(api.DisableExecuteApiEndpoint).toBe(true);
        const domain = synth.json.Resources[resourcesOfType(synth.json, 'AWS::ApiGatewayV2::DomainName')[0]!]!.Properties!;
        expect(domain).toMatchObject({ DomainName: context.apiDomain, DomainNameConfigurations: [{ CertificateArn: context.apiCertificateArn, SecurityPolicy: 'TLS_1_2' }] });
        expect(resourcesOfType(synth.json, 'AWS::ApiGatewayV2::ApiMapping')).toHaveLength(1);
        for (const url of urls) expect(url).toBe(`https://${context.apiDomain}/api/v1/`);
        expect(origins).toContain(context.apiDomain);
        expect(JSON.stringify(synth.json.Outputs)).not.toContain('ApiEndpoint');
      } else {
        expect(api.DisableExecuteApiEndpoint).toBeUndefined();
        expect(resourcesOfType(synth.json, 'AWS::ApiGatewayV2::DomainName')).toEqual([]);
        // The API's own execute-api endpoint (its ApiEndpoint attribute).
        for (const url of urls) expect(JSON.stringify(url)).toMatch(/"Fn::GetAtt":\["ApiHttpApi[0-9A-F]+","ApiEndpoint"\]/);
      }
    });

    it('puts the web ACL (managed common, known bad inputs, per-IP rate) on the distribution when asked', () => {
      const acls = resourcesOfType(synth.json, 'AWS::WAFv2::WebACL');
      const distribution = synth.json.Resources[resourcesOfType(synth.json, 'AWS::CloudFront::Distribution')[0]!]!.Properties!.DistributionConfig;
      if ('waf' in context) {
        expect(acls).toHaveLength(1);
        const acl = synth.json.Resources[acls[0]!]!.Properties!;
        expect(acl.Scope).toBe('CLOUDFRONT');
        const rules = acl.Rules as { Name: string; Statement: Record<string, any> }[];
        expect(rules.map((rule) => rule.Name)).toEqual(['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet', 'RatePerIp']);
        expect(rules[2]!.Statement.RateBasedStatement).toEqual({ Limit: Number(context.wafRatePer5Minutes), AggregateKeyType: 'IP' });
        expect(referencedId(distribution.WebACLId)).toBe(acls[0]);
        // A CLOUDFRONT web ACL exists only in us-east-1: the template says so before anything is created.
        expect(JSON.stringify((synth.json as { Rules?: unknown }).Rules)).toContain('us-east-1');
      } else {
        expect(acls).toEqual([]);
        expect(distribution.WebACLId).toBeUndefined();
      }
    });
  });

  describe('tracing', () => {
    it('is active on every function with the Powertools Tracer on exactly when the tracing context is set', () => {
      const on = 'tracing' in context;
      for (const fn of platformFunctionsOf(synth.stack)) {
        const properties = synth.json.Resources[synth.stack.getLogicalId(fn.function.node.defaultChild as never)]!.Properties!;
        expect(properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe(on ? 'true' : 'false');
        expect(properties.TracingConfig).toEqual(on ? { Mode: 'Active' } : undefined);
      }
    });
  });
});

describe('context', () => {
  it('reads every name into stack props, and refuses half pairs, both WAF forms and bad numbers', () => {
    expect(propsFromContext(() => undefined)).toMatchObject({ stage: 'dev', tracing: false });
    const full = propsFromContext((name) => (fullContext as Record<string, string>)[name]);
    expect(full).toMatchObject({
      stage: 'prod',
      apiCustomDomain: { domainName: fullContext.apiDomain, certificateArn: fullContext.apiCertificateArn },
      appsCustomDomain: { domainName: fullContext.appsDomain, certificateArn: fullContext.appsCertificateArn },
      alarmEmail: fullContext.alarmEmail,
      waf: { create: true, ratePer5Minutes: 3000 },
      backupCopyVaultArn: fullContext.backupCopyVaultArn,
      tracing: true,
      consumerMaxConcurrency: 10,
    });
    expect(propsFromContext((name) => ({ wafWebAclArn: 'arn:aws:wafv2:us-east-1:1:global/webacl/x/y' })[name as 'wafWebAclArn']).waf).toEqual({ webAclArn: 'arn:aws:wafv2:us-east-1:1:global/webacl/x/y' });
    expect(() => propsFromContext((name) => ({ apiDomain: 'api.example.com' })[name as 'apiDomain'])).toThrow(/apiCertificateArn/);
    expect(() => propsFromContext((name) => ({ waf: 'true', wafWebAclArn: 'arn' })[name as 'waf'])).toThrow(/not both/);
    expect(() => propsFromContext((name) => ({ tracing: 'yes' })[name as 'tracing'])).toThrow(/true or false/);
    expect(() => propsFromContext((name) => ({ consumerMaxConcurrency: '1' })[name as 'consumerMaxConcurrency'])).toThrow(/from 2/);
    expect(() => propsFromContext((name) => ({ stage: 'Prod' })[name as 'stage'])).toThrow(/Invalid stage/);
  });
});
