/** Path rules of app serving: decoding once, traversal, hashed names and the caching table (hosting.md §6, §6.2). */
import { describe, expect, it } from 'vitest';
import { cacheControlOf, decodeServedPath, isHashedName } from '../../../../shared/modules/hosting/serving';

describe('decodeServedPath', () => {
  it('percent-decodes exactly once', () => {
    expect(decodeServedPath('img/a%20b.png')).toBe('img/a b.png');
    expect(decodeServedPath('a%252e%252e/b')).toBe('a%2e%2e/b');
    expect(decodeServedPath('')).toBe('');
  });

  it('refuses `..` segments (literal or encoded), NUL bytes and malformed escapes', () => {
    for (const raw of ['..', '../x', 'a/../b', 'a/%2e%2e/b', 'a/%2E%2E', '%2e%2e%2fetc', 'a%00b', 'a/%zz', '%']) {
      expect(decodeServedPath(raw), raw).toBeUndefined();
    }
  });

  it('keeps names that merely contain dots', () => {
    expect(decodeServedPath('a/..b/c...')).toBe('a/..b/c...');
    expect(decodeServedPath('./a')).toBe('./a');
  });
});

describe('isHashedName (before the extension: `.` or `-`, then 8+ of [A-Za-z0-9_] with a digit)', () => {
  it.each([
    'main.3f9a2c1b.js',
    'assets/index-BxT3kz9Q.js',
    'chunk.12345678.css',
    'font-abcdefg1.woff2',
    'x.aaaa_aa1.svg',
    'deep/path/app-0000000000000000.wasm',
  ])('%s is hashed', (name) => expect(isHashedName(name)).toBe(true));

  it.each([
    'main.js',
    'index.html.js',
    'logo-abcdefgh.png', // no digit
    'app-1234567.js', // 7 characters
    'app_12345678.js', // `_` is not a separator
    'main.3f9a2c1b', // no extension: the hash is the extension
    'LICENSE-12345678',
    'main.3f9a2c1b.js.map', // before `.map` comes `.js`
    'a/main.3f9a2c1b.js/readme', // the last segment counts
  ])('%s is not hashed', (name) => expect(isHashedName(name)).toBe(false));
});

describe('cacheControlOf', () => {
  it('follows the table: HTML no-cache, hashed immutable, the rest five minutes', () => {
    expect(cacheControlOf('index.html')).toBe('no-cache');
    expect(cacheControlOf('docs/page.htm')).toBe('no-cache');
    expect(cacheControlOf('page-12345678.html')).toBe('no-cache');
    expect(cacheControlOf('assets/index-BxT3kz9Q.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlOf('logo.png')).toBe('public, max-age=300');
    expect(cacheControlOf('robots.txt')).toBe('public, max-age=300');
  });
});
