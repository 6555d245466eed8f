import { beforeAll, describe, expect, it } from 'vitest';
import { schedules } from '../../shared/app/schedules';
import { allowedActions, functionWithRole, resourcesOfType, synthesize, synthTimeout, type Synthesized } from './synthesize';

describe('scheduled jobs from shared/app/schedules.ts', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  it.each(schedules.map((schedule) => [schedule.name, schedule] as const))('%s runs from an EventBridge rate rule on its own function', (name, schedule) => {
    const fn = functionWithRole(synth.json, `schedule:${name}`);
    const rule = resourcesOfType(synth.json, 'AWS::Events::Rule')
      .map((id) => synth.json.Resources[id]!)
      .find((candidate) => JSON.stringify(candidate.Properties!.Targets).includes(fn));
    expect(rule).toBeDefined();
    // EventBridge wants the singular for one: rate(1 minute).
    expect(rule!.Properties!.ScheduleExpression).toBe(`rate(${schedule.everyMinutes} ${schedule.everyMinutes === 1 ? 'minute' : 'minutes'})`);
    const actions = allowedActions(synth.json, fn);
    expect(actions).toEqual(expect.arrayContaining(['ses:SendEmail']));
    // Only the queues its entry names (due event deliveries are handed to event-notifications).
    expect(actions.some((action) => action.startsWith('sqs:') && action !== 'sqs:SendMessage')).toBe(false);
    expect(actions.includes('sqs:SendMessage')).toBe(schedule.grants.sendsTo.length > 0);
  });
});
