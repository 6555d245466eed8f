/**
 * Who watches the platform: one SNS topic every alarm notifies (an email subscription when the
 * AlarmEmail parameter is set), the alarms, and one CloudWatch dashboard with the same signals.
 *
 * Alarms are derived from what the stack holds, never from a list of today's families:
 * functions are grouped by the part of their role before `:` (`family`, `consumer`,
 * `schedule`) and each group's errors and throttles are summed by metric math, at most ten
 * functions per alarm (CloudWatch's limit of metrics in one alarm), so a new module's family
 * joins its group's alarm without an edit here.
 */
import { CfnCondition, CfnParameter, Duration, Fn } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, METRICS_SERVICE, metricNames } from '../../shared/core/metrics';
import { pascalCase } from './outputs';
import type { PlatformFunction } from './platform-function';
import type { WorkQueue } from './work-queues';

/** Thresholds of the alarms (each one stated where an operator can find it: docs/operations.md). */
export const alarmThresholds = {
  /** Function errors of one group within 5 minutes. */
  functionErrors: 5,
  /** Throttled invocations of one group within 5 minutes: any is worth knowing. */
  functionThrottles: 1,
  /** Share of API answers that were 5xx, percent, over 5 minutes (with at least 20 requests). */
  api5xxPercent: 1,
  /** API p99 latency, milliseconds, three 5-minute periods running. */
  apiP99LatencyMs: 3000,
  /** Oldest message of a work queue, seconds: messages are re-hidden up to 12 h by design, so only a day is late. */
  queueOldestMessageSeconds: 26 * 3600,
  /** How far behind the due-work sweep is, milliseconds (it runs every minute). */
  dueWorkLagMs: 10 * 60_000,
  /** Failed hosted-function invocations (customer code errors, timeouts, crashes) within 5 minutes. */
  hostedFunctionErrors: 50,
} as const;

/** The CloudWatch limit of metrics one alarm's math may read. */
const METRICS_PER_ALARM = 10;

/** What is watched. */
export interface MonitoringProps {
  stage: string;
  /** Every platform function (families, consumers, scheduled jobs). */
  functions: readonly PlatformFunction[];
  httpApi: apigw.IHttpApi;
  table: dynamodb.Table;
  workQueues: readonly WorkQueue[];
  /** Default of the AlarmEmail parameter (the `alarmEmail` context). */
  alarmEmail?: string;
}

/** The alarm topic, the alarms and the dashboard. */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;
  /** The topic's email subscription (present when the AlarmEmail parameter is set). */
  readonly emailSubscription: sns.CfnSubscription;
  private readonly widgets: cloudwatch.IWidget[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Cartwheel ${props.stage} alarms`, enforceSSL: true });
    const alarmEmail = new CfnParameter(scope, 'AlarmEmail', {
      type: 'String',
      default: props.alarmEmail ?? '',
      allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
      description: 'Email address every alarm notifies (confirm the subscription SNS sends); empty for none',
    });
    const hasEmail = new CfnCondition(this, 'HasAlarmEmail', { expression: Fn.conditionNot(Fn.conditionEquals(alarmEmail.valueAsString, '')) });
    const subscription = new sns.CfnSubscription(this, 'AlarmEmailSubscription', { topicArn: this.topic.topicArn, protocol: 'email', endpoint: alarmEmail.valueAsString });
    subscription.cfnOptions.condition = hasEmail;
    this.emailSubscription = subscription;

    this.functionAlarms(props.functions);
    this.apiAlarms(props.httpApi);
    this.tableAlarms(props.table);
    this.queueAlarms(props.workQueues);
    this.customAlarms();

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `cartwheel-${props.stage}`,
      defaultInterval: Duration.hours(6),
      widgets: [[new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 })], ...rows(this.widgets, 3)],
    });
  }

  /** An alarm that notifies the topic, with its graph on the dashboard. */
  private alarm(id: string, title: string, options: Omit<cloudwatch.AlarmProps, 'alarmDescription'>): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, { alarmDescription: title, ...options });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    alarm.addOkAction(new actions.SnsAction(this.topic));
    this.alarms.push(alarm);
    this.widgets.push(new cloudwatch.AlarmWidget({ title, alarm, width: 8 }));
    return alarm;
  }

  /** An existing alarm (the DLQs'): it notifies the topic too and shows on the dashboard. */
  adopt(alarm: cloudwatch.Alarm, title: string): void {
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    alarm.addOkAction(new actions.SnsAction(this.topic));
    this.alarms.push(alarm);
    this.widgets.push(new cloudwatch.AlarmWidget({ title, alarm, width: 8 }));
  }

  private functionAlarms(functions: readonly PlatformFunction[]): void {
    const groups = new Map<string, PlatformFunction[]>();
    for (const fn of functions) {
      const group = fn.role.split(':')[0]!;
      groups.set(group, [...(groups.get(group) ?? []), fn]);
    }
    for (const [group, members] of groups) {
      for (let start = 0, part = 1; start < members.length; start += METRICS_PER_ALARM, part++) {
        const chunk = members.slice(start, start + METRICS_PER_ALARM);
        const suffix = members.length > METRICS_PER_ALARM ? ` ${part}` : '';
        const id = `${pascalCase(group)}${part > 1 || members.length > METRICS_PER_ALARM ? part : ''}`;
        const summed = (metric: 'Errors' | 'Throttles') =>
          new cloudwatch.MathExpression({
            expression: chunk.map((_, index) => `FILL(m${index}, 0)`).join(' + '),
            usingMetrics: Object.fromEntries(chunk.map((fn, index) => [`m${index}`, fn.function.metric(metric, { statistic: cloudwatch.Stats.SUM, period: Duration.minutes(5) })])),
            label: `${metric}: ${group} functions${suffix}`,
            period: Duration.minutes(5),
          });
        this.alarm(`${id}FunctionErrors`, `Lambda errors: ${group} functions${suffix}`, {
          metric: summed('Errors'),
          threshold: alarmThresholds.functionErrors,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
        this.alarm(`${id}FunctionThrottles`, `Lambda throttles: ${group} functions${suffix}`, {
          metric: summed('Throttles'),
          threshold: alarmThresholds.functionThrottles,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
      }
    }
  }

  private apiAlarms(httpApi: apigw.IHttpApi): void {
    const period = Duration.minutes(5);
    const count = httpApi.metricCount({ statistic: cloudwatch.Stats.SUM, period });
    const errors = httpApi.metricServerError({ statistic: cloudwatch.Stats.SUM, period });
    this.alarm('Api5xxRate', 'API 5xx answers, % of requests', {
      // Below 20 requests a single failure is no rate: the expression answers 0 then.
      metric: new cloudwatch.MathExpression({ expression: 'IF(requests >= 20, 100 * errors / requests, 0)', usingMetrics: { requests: count, errors }, label: 'API 5xx %', period }),
      threshold: alarmThresholds.api5xxPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarm('ApiP99Latency', 'API p99 latency (ms)', {
      metric: httpApi.metricLatency({ statistic: cloudwatch.Stats.p(99), period }),
      threshold: alarmThresholds.apiP99LatencyMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  private tableAlarms(table: dynamodb.Table): void {
    const period = Duration.minutes(5);
    const tableMetric = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: table.tableName }, statistic: cloudwatch.Stats.SUM, period });
    this.alarm('TableThrottles', 'DynamoDB throttled reads and writes', {
      metric: new cloudwatch.MathExpression({ expression: 'FILL(reads, 0) + FILL(writes, 0)', usingMetrics: { reads: tableMetric('ReadThrottleEvents'), writes: tableMetric('WriteThrottleEvents') }, label: 'Throttle events', period }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarm('TableSystemErrors', 'DynamoDB system errors', {
      metric: table.metricSystemErrorsForOperations({ period, operations: tableOperations }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  private queueAlarms(workQueues: readonly WorkQueue[]): void {
    for (const work of workQueues) {
      const name = work.definition.name;
      this.alarm(`${pascalCase(name)}OldestMessage`, `Oldest message (s): ${name}`, {
        metric: work.queue.metricApproximateAgeOfOldestMessage({ statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(5) }),
        threshold: alarmThresholds.queueOldestMessageSeconds,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      this.adopt(work.alarm, `Dead-letter messages: ${name}`);
    }
  }

  /** Alarms on the platform's own metrics (shared/core/metrics.ts). */
  private customAlarms(): void {
    this.alarm('DueWorkBehind', 'Due-work sweep lag (ms); missing = the sweep is not running', {
      metric: customMetric(metricNames.dueWorkLag, {}, cloudwatch.Stats.MAXIMUM),
      threshold: alarmThresholds.dueWorkLagMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      // The sweep reports every minute; silence means it stopped.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    this.alarm('HostedFunctionErrors', 'Hosted function invocations that failed', {
      metric: customMetric(metricNames.hostedFunctionInvocations, { outcome: 'error' }, cloudwatch.Stats.SUM),
      threshold: alarmThresholds.hostedFunctionErrors,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Business signals: graphs only (a quiet night is no incident).
    for (const [title, metric] of [
      ['Checkouts', customMetric(metricNames.checkouts, {}, cloudwatch.Stats.SUM)],
      ['Payments declined', customMetric(metricNames.payments, { outcome: 'declined' }, cloudwatch.Stats.SUM)],
      ['Webhook deliveries failed', customMetric(metricNames.webhookDeliveries, { outcome: 'failed' }, cloudwatch.Stats.SUM)],
      ['License deliveries failed', customMetric(metricNames.licenseDeliveries, { outcome: 'failed' }, cloudwatch.Stats.SUM)],
    ] as const) {
      this.widgets.push(new cloudwatch.GraphWidget({ title, left: [metric], width: 8 }));
    }
  }
}

/** Operations the platform calls (the system-errors alarm sums them; at most ten per alarm). */
const tableOperations: dynamodb.Operation[] = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
];

/** One of the platform's own metrics, with the dimensions Powertools writes (service, then any outcome). */
function customMetric(metricName: string, dimensions: Record<string, string>, statistic: string): cloudwatch.Metric {
  return new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: METRICS_SERVICE, ...dimensions }, statistic, period: Duration.minutes(5) });
}

/** Widgets in rows of `perRow`. */
function rows(widgets: readonly cloudwatch.IWidget[], perRow: number): cloudwatch.IWidget[][] {
  const result: cloudwatch.IWidget[][] = [];
  for (let index = 0; index < widgets.length; index += perRow) result.push(widgets.slice(index, index + perRow));
  return result;
}
