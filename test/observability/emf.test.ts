/**
 * The platform's metrics (shared/core/metrics.ts) as CloudWatch reads them: the EMF lines a card
 * payment writes (approved, declined, failed at the gateway), validated against the EMF
 * specification's JSON schema (test/support/emf-schema.json, written from the specification,
 * with ajv, which node_modules holds for @seriousme/openapi-schema-validator), plus what the
 * specification says in prose: every directive's dimensions and metrics are members of the
 * root node, dimension values are strings, and our own rules (at most five dimensions, never
 * an account id).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Harness, useEmulatedTable } from '../local/fixtures/dynamo-harness';

// Metrics are off for the other tests (vitest.config.ts); this file is about them.
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
vi.stubEnv('POWERTOOLS_DEV', '');

const schema = JSON.parse(readFileSync(new URL('../support/emf-schema.json', import.meta.url), 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** What one call wrote to stdout, as JSON lines. */
async function linesWritten(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(chunk.toString());
    return true;
  });
  try {
    await run().catch(() => undefined);
  } finally {
    spy.mockRestore();
  }
  return written.join('').split('\n').filter((line) => line.trim().startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
}

/** The spec's rules the schema cannot express, and ours. */
function expectWellFormed(line: Record<string, any>): void {
  expect(validate(line), JSON.stringify(validate.errors)).toBe(true);
  for (const directive of line._aws.CloudWatchMetrics) {
    for (const set of directive.Dimensions as string[][]) {
      expect(set.length).toBeLessThanOrEqual(5);
      for (const name of set) {
        expect(typeof line[name], `dimension ${name}`).toBe('string');
        expect(name.toLowerCase()).not.toContain('account');
      }
    }
    for (const metric of directive.Metrics as { Name: string }[]) expect(typeof line[metric.Name], `metric ${metric.Name}`).toBe('number');
  }
  expect(JSON.stringify(line)).not.toMatch(/acct_|4242|4000000000000002|"number"/);
}

describe('EMF lines of a payment', () => {
  // The test gateway records each charge by its key in the table, as the real flow does.
  useEmulatedTable(new Harness());
  let chargeCard: typeof import('../../shared/flows/checkout/charge-card').chargeCard;
  let testPlatform: typeof import('../support/platform').testPlatform;
  beforeAll(async () => {
    ({ chargeCard } = await import('../../shared/flows/checkout/charge-card'));
    ({ testPlatform } = await import('../support/platform'));
  });
  afterEach(() => vi.restoreAllMocks());

  const charge = (number: string) => ({
    scope: { accountId: 'acct_emf', mode: 'test' as const },
    paymentId: `pay_${number.slice(-4)}`,
    amount: 1250,
    currency: 'USD',
    card: { kind: 'new' as const, number, expMonth: 12, expYear: 2099, cvv: '123', cardholderName: null, billingAddress: null },
    fallbackPostalCode: null,
    settings: { ignore_bad_cvv: false, ignore_bad_avs: false },
  });

  it.each([
    ['4242424242424242', 'succeeded'],
    ['4000000000000002', 'declined'],
    ['4000000000000119', 'error'],
  ])('card %s: one valid EMF line counting a %s payment', async (number, outcome) => {
    const platform = testPlatform();
    const lines = await linesWritten(() => chargeCard(platform, charge(number) as never));
    const emf = lines.filter((line) => line._aws);
    expect(emf).toHaveLength(1);
    expectWellFormed(emf[0]!);
    expect(emf[0]).toMatchObject({ service: 'cartwheel', outcome, PaymentOutcomes: 1 });
    expect(emf[0]!._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Cartwheel', Dimensions: [['service', 'outcome']], Metrics: [{ Name: 'PaymentOutcomes', Unit: 'Count' }] });
  });

  it('due-work lag and the other outcomes are valid EMF too', async () => {
    const { recordDueWorkLag, countOutcome, count, metricNames } = await import('../../shared/core/metrics');
    const lines = await linesWritten(async () => {
      recordDueWorkLag(1234.6);
      countOutcome(metricNames.webhookDeliveries, 'failed');
      countOutcome(metricNames.licenseDeliveries, 'succeeded');
      count(metricNames.checkouts);
    });
    expect(lines).toHaveLength(4);
    for (const line of lines) expectWellFormed(line);
    expect(lines[0]).toMatchObject({ DueWorkLagMs: 1235 });
  });

  it('the schema refuses what the specification forbids (it is not a schema that passes anything)', () => {
    const good = { _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'N', Dimensions: [['a']], Metrics: [{ Name: 'M', Unit: 'Count' }] }] }, a: 'x', M: 1 };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, _aws: { ...good._aws, Timestamp: '1' } })).toBe(false);
    expect(validate({ ...good, _aws: { ...good._aws, CloudWatchMetrics: [{ ...good._aws.CloudWatchMetrics[0], Metrics: [{ Name: 'M', Unit: 'Apples' }] }] } })).toBe(false);
    expect(validate({ ...good, _aws: { ...good._aws, CloudWatchMetrics: [{ ...good._aws.CloudWatchMetrics[0], Dimensions: [Array.from({ length: 31 }, (_, index) => `d${index}`)] }] } })).toBe(false);
    expect(validate({ a: 'x' })).toBe(false);
  });
});
