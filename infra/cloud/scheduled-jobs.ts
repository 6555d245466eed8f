/**
 * Scheduled jobs from shared/app/schedules.ts: one function each (environment and IAM from its
 * grants, like every platform function), invoked by an EventBridge rate rule.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { ScheduleDefinition } from '../../shared/app/schedules';
import { pascalCase } from './outputs';
import { PlatformFunction, type PlatformResources } from './platform-function';

/** Props of the scheduled jobs. */
export interface ScheduledJobsProps {
  schedules: readonly ScheduleDefinition[];
  resources: PlatformResources;
}

/** The functions and rules of every scheduled job. */
export class ScheduledJobs extends Construct {
  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    for (const schedule of props.schedules) {
      const job = new PlatformFunction(this, pascalCase(schedule.name), {
        entry: schedule.entry,
        memoryMb: schedule.memoryMb,
        description: `Scheduled: ${schedule.description}`,
        grants: schedule.grants,
        resources: props.resources,
        role: `schedule:${schedule.name}`,
        timeout: Duration.minutes(2),
      });
      new events.Rule(this, `${pascalCase(schedule.name)}Rule`, {
        description: schedule.description,
        schedule: events.Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        targets: [new targets.LambdaFunction(job.function, { retryAttempts: 2 })],
      });
    }
  }
}
