import { describe, expect, it } from 'vitest';
import { parseRateLimit, readConfig } from '../shared/config';

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
    expect(config.email.kind).toBe('ses');
    expect(config.secrets.kind).toBe('kms');
  });

  it('collects queue URLs by logical name', () => {
    const config = readConfig({ CARTWHEEL_QUEUE_URL_EVENT_NOTIFICATIONS: 'http://q/1' });
    expect(config.queueUrls).toEqual({ 'event-notifications': 'http://q/1' });
  });

  it('requires the outbox dir and local key file for the local ports', () => {
    expect(() => readConfig({ CARTWHEEL_EMAIL: 'outbox' })).toThrow(/CARTWHEEL_OUTBOX_DIR/);
    expect(() => readConfig({ CARTWHEEL_SECRETS: 'local' })).toThrow(/CARTWHEEL_LOCAL_KEY_FILE/);
  });
});
