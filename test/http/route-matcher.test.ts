import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../shared/app/routes';
import { compileRoutes } from '../../shared/http/route-matcher';

const r = (method: RouteDefinition['method'], path: string): RouteDefinition => ({ method, path, family: 'auths', access: { kind: 'any-token' } });

describe('route matching like API Gateway', () => {
  const matcher = compileRoutes([r('GET', '/api/v1/auths/{auth_id}'), r('GET', '/api/v1/auths/me'), r('POST', '/api/v1/auths/secret'), r('DELETE', '/api/v1/auths/{auth_id}')]);

  it('prefers literal segments over parameters', () => {
    expect(matcher.match('GET', '/api/v1/auths/me')?.routeKey).toBe('GET /api/v1/auths/me');
    expect(matcher.match('GET', '/api/v1/auths/ABC')).toMatchObject({ routeKey: 'GET /api/v1/auths/{auth_id}', params: { auth_id: 'ABC' } });
  });

  it('matches by method first', () => {
    expect(matcher.match('GET', '/api/v1/auths/secret')?.routeKey).toBe('GET /api/v1/auths/{auth_id}');
    expect(matcher.match('PUT', '/api/v1/auths/secret')).toBeUndefined();
  });

  it('decodes parameters and tolerates a trailing slash', () => {
    expect(matcher.match('GET', '/api/v1/auths/a%20b/')?.params).toEqual({ auth_id: 'a b' });
  });

  it('lists allowed methods for 405', () => {
    expect(matcher.allowedMethods('/api/v1/auths/XYZ').sort()).toEqual(['DELETE', 'GET', 'OPTIONS']);
    expect(matcher.allowedMethods('/api/v2/auths')).toEqual([]);
  });
});
