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

describe('greedy paths and ANY (the surfaces of hosted functions and sign-in pages)', () => {
  const matcher = compileRoutes([
    r('ANY', '/func/v1/{function_id}'),
    r('ANY', '/func/v1/{function_id}/{path+}'),
    r('GET', '/func/v1/{function_id}/status'),
    r('POST', '/func/v1/{function_id}/{path+}'),
  ]);

  it('lets a greedy parameter take one or more segments, decoded', () => {
    expect(matcher.match('GET', '/func/v1/F1/a/b%20c/d')).toMatchObject({ routeKey: 'ANY /func/v1/{function_id}/{path+}', params: { function_id: 'F1', path: 'a/b c/d' } });
    expect(matcher.match('GET', '/func/v1/F1')).toMatchObject({ routeKey: 'ANY /func/v1/{function_id}', params: { function_id: 'F1' } });
  });

  it('matches ANY method, and the request method beats ANY on the same path', () => {
    expect(matcher.match('PATCH', '/func/v1/F1/x')?.routeKey).toBe('ANY /func/v1/{function_id}/{path+}');
    expect(matcher.match('POST', '/func/v1/F1/x')?.routeKey).toBe('POST /func/v1/{function_id}/{path+}');
  });

  it('prefers a literal segment and a single parameter over a greedy one', () => {
    expect(matcher.match('GET', '/func/v1/F1/status')?.routeKey).toBe('GET /func/v1/{function_id}/status');
    expect(matcher.match('DELETE', '/func/v1/F1/status')?.routeKey).toBe('ANY /func/v1/{function_id}/{path+}');
  });

  it('refuses a greedy parameter that does not end the path', () => {
    expect(() => compileRoutes([r('GET', '/a/{rest+}/b')])).toThrow(/must end the path/);
  });
});
