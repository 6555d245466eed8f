/**
 * The platform's business metrics (Powertools Metrics): CloudWatch embedded metric format
 * (EMF) lines on stdout, which Lambda turns into metrics in the `Cartwheel` namespace and
 * the local runtime prints beside the access lines. One line per event (`singleMetric`), so no
 * handler has to remember to flush. Dimensions are few and bounded (`service` and at most one
 * `outcome`): never an account id, an id of any kind or free text, each of which would be a
 * metric of its own (and a bill of its own).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** Namespace of every custom metric (the alarms and the dashboard read it). */
export const METRICS_NAMESPACE = 'Cartwheel';

/** Service dimension of every custom metric (Powertools' `service`). */
export const METRICS_SERVICE = 'cartwheel';

/** The custom metrics, by name, with the outcomes each may carry. */
export const metricNames = {
  /** A checkout that completed a payment (an order was created). */
  checkouts: 'Checkouts',
  /** A card payment attempt, by outcome. */
  payments: 'PaymentOutcomes',
  /** An event (webhook) delivery attempt, by outcome. */
  webhookDeliveries: 'WebhookDeliveries',
  /** A license request delivery attempt, by outcome. */
  licenseDeliveries: 'LicenseDeliveries',
  /** How late a due-work record ran, in milliseconds past its due time. */
  dueWorkLag: 'DueWorkLagMs',
  /** A hosted function invocation, by outcome. */
  hostedFunctionInvocations: 'HostedFunctionInvocations',
} as const;

/** What an outcome-counting metric may report (bounded: each value is one CloudWatch metric). */
export type Outcome = 'succeeded' | 'failed' | 'declined' | 'retrying' | 'error';

const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE, serviceName: METRICS_SERVICE });

/** Counts one event of `name` with `outcome` as its one extra dimension. @example countOutcome(metricNames.payments, 'declined') */
export function countOutcome(name: (typeof metricNames)[keyof typeof metricNames], outcome: Outcome): void {
  const single = metrics.singleMetric();
  single.addDimension('outcome', outcome);
  single.addMetric(name, MetricUnit.Count, 1);
}

/** Counts one event of `name` (no dimension beyond the service). */
export function count(name: (typeof metricNames)[keyof typeof metricNames]): void {
  metrics.singleMetric().addMetric(name, MetricUnit.Count, 1);
}

/** Records how many milliseconds past its due time a due-work record ran. */
export function recordDueWorkLag(lagMs: number): void {
  metrics.singleMetric().addMetric(metricNames.dueWorkLag, MetricUnit.Milliseconds, Math.max(0, Math.round(lagMs)));
}
