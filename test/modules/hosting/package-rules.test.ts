/**
 * The hosting rules on top of a safe zip (hosting.md §3.2, §6.1): the root folder, the paths
 * that are not stored (platform-owned, macOS residue) and the content type of each file.
 */
import { describe, expect, it } from 'vitest';
import { contentTypeOf, DEFAULT_CONTENT_TYPE } from '../../../shared/modules/hosting/content-types';
import { isPlatformOwned, MAX_IGNORED_LISTED, planAppPackage } from '../../../shared/modules/hosting/package-rules';

/** A directory listing as the zip reader gives it. */
const zip = (...paths: string[]) => ({ files: paths.map((path) => ({ path, bytes: 1, compressedBytes: 1 })) });
const stored = (plan: ReturnType<typeof planAppPackage>) => plan.files.map((file) => file.path);

async function refusal(run: () => unknown): Promise<{ status: number; meta: Record<string, unknown> }> {
  try {
    run();
  } catch (error) {
    return error as { status: number; meta: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

describe('root detection', () => {
  it('keeps a root with index.html as it is', () => {
    const plan = planAppPackage(zip('index.html', 'js/app.js', 'build/index.html'));
    expect(plan.root).toBe('');
    expect(stored(plan)).toEqual(['index.html', 'js/app.js', 'build/index.html']);
  });

  it('makes the one top-level folder holding index.html the root', () => {
    const plan = planAppPackage(zip('dist/index.html', 'dist/assets/main.3f9a2c1b.js'));
    expect(plan.root).toBe('dist/');
    expect(stored(plan)).toEqual(['index.html', 'assets/main.3f9a2c1b.js']);
    expect(plan.files[1]!.entry.path).toBe('dist/assets/main.3f9a2c1b.js');
  });

  it('ignores the Finder residue beside the build folder when looking for the root', () => {
    const plan = planAppPackage(zip('site/index.html', '__MACOSX/site/._index.html', 'site/.DS_Store', 'site/css/a.css'));
    expect(plan.root).toBe('site/');
    expect(stored(plan)).toEqual(['index.html', 'css/a.css']);
    expect(plan.ignoredPaths).toEqual(['__MACOSX/site/._index.html', 'site/.DS_Store']);
  });

  it.each([
    ['no index.html at all', zip('app.js', 'style.css')],
    ['index.html two folders down', zip('a/b/index.html', 'a/b/app.js')],
    ['two top-level folders', zip('a/index.html', 'b/app.js')],
    ['a folder with index.html beside a root file', zip('a/index.html', 'readme.txt')],
    ['index.html only in another case', zip('INDEX.HTML')],
    ['nothing at all', zip()],
  ])('%s: 400 invalid_input, reason missing_index', async (_name, listing) => {
    expect(await refusal(() => planAppPackage(listing))).toMatchObject({ status: 400, meta: { property: 'file', reason: 'missing_index' } });
  });
});

describe('paths not stored', () => {
  it('leaves out the platform-owned paths below the root, listing them in zip order', () => {
    const plan = planAppPackage(zip('index.html', 'settings/app.js', 'analytics/pageview.js', 'oauth/callback.html', 'oauth/other.html', 'settingsx/a.js', 'Settings/a.js', 'js/settings/a.js'));
    expect(stored(plan)).toEqual(['index.html', 'oauth/other.html', 'settingsx/a.js', 'Settings/a.js', 'js/settings/a.js']);
    expect(plan.ignoredPaths).toEqual(['settings/app.js', 'analytics/pageview.js', 'oauth/callback.html']);
    expect(plan.ignoredCount).toBe(3);
  });

  it('judges platform paths below the detected root folder, and lists the zip paths', () => {
    const plan = planAppPackage(zip('build/index.html', 'build/settings/app.json', 'build/oauth/callback.html'));
    expect(stored(plan)).toEqual(['index.html']);
    expect(plan.ignoredPaths).toEqual(['build/settings/app.json', 'build/oauth/callback.html']);
  });

  it('drops __MACOSX folders and .DS_Store files at any depth', () => {
    const plan = planAppPackage(zip('index.html', '.DS_Store', 'img/.DS_Store', 'img/__MACOSX/x', 'img/a.png', 'img/not.DS_Store'));
    expect(stored(plan)).toEqual(['index.html', 'img/a.png', 'img/not.DS_Store']);
    expect(plan.ignoredPaths).toEqual(['.DS_Store', 'img/.DS_Store', 'img/__MACOSX/x']);
  });

  it('lists at most 100 ignored paths, and counts them all', () => {
    const many = Array.from({ length: 150 }, (_, index) => `settings/f${index}.js`);
    const plan = planAppPackage(zip('index.html', ...many));
    expect(plan.ignoredPaths).toHaveLength(MAX_IGNORED_LISTED);
    expect(plan.ignoredPaths[0]).toBe('settings/f0.js');
    expect(plan.ignoredCount).toBe(150);
  });

  it('knows the platform-owned paths', () => {
    for (const path of ['settings/app.js', 'settings/', 'analytics/x', 'oauth/callback.html']) expect(isPlatformOwned(path), path).toBe(true);
    for (const path of ['settings', 'oauth/callback.htm', 'oauth/', 'x/settings/a', 'analytics.js']) expect(isPlatformOwned(path), path).toBe(false);
  });
});

describe('contentTypeOf', () => {
  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['a/b.HTM', 'text/html; charset=utf-8'],
    ['main.3f9a2c1b.js', 'text/javascript; charset=utf-8'],
    ['mod.mjs', 'text/javascript; charset=utf-8'],
    ['s.css', 'text/css; charset=utf-8'],
    ['d.json', 'application/json'],
    ['app.js.map', 'application/json'],
    ['site.webmanifest', 'application/manifest+json'],
    ['r.txt', 'text/plain; charset=utf-8'],
    ['t.csv', 'text/csv; charset=utf-8'],
    ['f.xml', 'application/xml'],
    ['i.svg', 'image/svg+xml'],
    ['i.png', 'image/png'],
    ['i.jpg', 'image/jpeg'],
    ['i.JPEG', 'image/jpeg'],
    ['i.gif', 'image/gif'],
    ['i.webp', 'image/webp'],
    ['i.avif', 'image/avif'],
    ['favicon.ico', 'image/x-icon'],
    ['f.woff', 'font/woff'],
    ['f.woff2', 'font/woff2'],
    ['f.ttf', 'font/ttf'],
    ['f.otf', 'font/otf'],
    ['f.eot', 'application/vnd.ms-fontobject'],
    ['m.wasm', 'application/wasm'],
    ['doc.pdf', 'application/pdf'],
    ['a.mp3', 'audio/mpeg'],
    ['v.mp4', 'video/mp4'],
    ['v.webm', 'video/webm'],
    ['LICENSE', DEFAULT_CONTENT_TYPE],
    ['archive.tar.gz', DEFAULT_CONTENT_TYPE],
    ['dir.js/file', DEFAULT_CONTENT_TYPE],
    ['x.constructor', DEFAULT_CONTENT_TYPE],
  ])('%s → %s', (path, type) => {
    expect(contentTypeOf(path)).toBe(type);
  });
});
