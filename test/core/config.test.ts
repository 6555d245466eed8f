import { describe, expect, it } from 'vitest';
import { parseRateLimit, readConfig } from '../../shared/core/config';

describe('configuration', () => {
  it('parses <per second>/<burst> rate limits and rejects nonsense', () => {
    expect(parseRateLimit(undefined, { rate: 100, burst: 200 })).toEqual({ rate: 100, burst: 200 });
    expect(parseRateLimit('5/10', { rate: 1, burst: 1 })).toEqual({ rate: 5, burst: 10 });
    expect(() => parseRateLimit('fast', { rate: 1, burst: 1 })).toThrow(/per second/);
    expect(() => parseRateLimit('0/10', { rate: 1, burst: 1 })).toThrow(/positive/);
  });

  it('uses the contract defaults', () => {
    const config = readConfig({});
    expect(config.rateLimits).toEqual({ perToken: { rate: 100, burst: 200 }, perIp: { rate: 10, burst: 20 } });
    expect(config.emailFrom).toBe('no-reply@cartwheel.localhost');
    expect(config.kmsKeyId).toBe('');
  });

  it('collects queue URLs by logical name', () => {
    const config = readConfig({ CARTWHEEL_QUEUE_URL_EVENT_NOTIFICATIONS: 'http://q/1' });
    expect(config.queueUrls).toEqual({ 'event-notifications': 'http://q/1' });
  });

  it('has no switch that picks a port adapter: the platform builder decides (SES/KMS in the cloud)', () => {
    const config = readConfig({ CARTWHEEL_EMAIL: 'outbox', CARTWHEEL_SECRETS: 'local', CARTWHEEL_KMS_KEY_ID: 'key-1', CARTWHEEL_EDGE_SECRET: 'e' });
    expect(config).not.toHaveProperty('email');
    expect(config).toMatchObject({ kmsKeyId: 'key-1', edgeSecret: 'e' });
  });

  it('reads the hosted functions role and name prefix only where they were granted', () => {
    expect(readConfig({}).hostedFunctions).toBeUndefined();
    const config = readConfig({ CARTWHEEL_FUNCTIONS_ROLE_ARN: 'arn:aws:iam::1:role/fn', CARTWHEEL_FUNCTIONS_PREFIX: 'cwfn-dev' });
    expect(config.hostedFunctions).toEqual({ roleArn: 'arn:aws:iam::1:role/fn', prefix: 'cwfn-dev' });
  });
});
