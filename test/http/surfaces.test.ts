import { describe, expect, it } from 'vitest';
import { surfaces } from '../../shared/app/surfaces';
import { pathPatternOf, surfaceFor } from '../../shared/http/surfaces';

const on = (path: string, host: 'platform' | 'app-hosts') => surfaceFor(surfaces, path, host)?.name;

describe('surfaces (shared/app/surfaces.ts)', () => {
  it('sends image files to the images surface on every host', () => {
    expect(on('/images/ABC/s.jpg', 'platform')).toBe('images');
    expect(on('/images/ABC/s.jpg', 'app-hosts')).toBe('images');
    expect(on('/images', 'platform')).toBe('api');
  });

  it('sends /api/v1 and below to the API on every host, and what nothing claims on the platform host', () => {
    expect(on('/api/v1', 'app-hosts')).toBe('api');
    expect(on('/api/v1/carts', 'app-hosts')).toBe('api');
    expect(on('/api/v2/carts', 'platform')).toBe('api');
    expect(on('/', 'platform')).toBe('api');
  });

  it('sends the path form of apps on the platform host, and every other path of an app host, to the apps', () => {
    expect(on('/apps/ACCT/shop/index.html', 'platform')).toBe('apps');
    expect(on('/apps/x', 'app-hosts')).toBe('apps');
    expect(on('/shop/index.html', 'app-hosts')).toBe('apps');
    expect(on('/api/v2/carts', 'app-hosts')).toBe('apps');
  });

  it('sends the sign-in page (with and without its slash) to the signin surface on the platform host only', () => {
    expect(on('/signin/', 'platform')).toBe('signin');
    expect(on('/signin', 'platform')).toBe('signin');
    expect(on('/signin/oauth/authorize', 'platform')).toBe('signin');
    expect(on('/signin/', 'app-hosts')).toBe('apps');
  });

  it('gives the CDN its path patterns', () => {
    expect(surfaces.map((surface) => pathPatternOf(surface))).toEqual(['/images/*', '/api/v1/*', '/func/v1/*', '/signin/*', '/apps/*']);
  });
});
