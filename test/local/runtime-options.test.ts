/**
 * `npm start` and the runtime the tests and benches spawn run with the same Node options, so
 * what bench:soak measures (memory under a 1 GiB heap cap) is what a developer's runtime does.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_NODE_OPTIONS } from '../support/runtime-process';

describe('local runtime Node options', () => {
  it('are the same for npm start and the spawned runtime', () => {
    const manifest = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    const options = /NODE_OPTIONS='([^']*)' tsx infra\/local\/main\.ts/.exec(manifest.scripts.start!)?.[1]?.split(/\s+/);
    expect(options).toBeDefined();
    expect([...options!].sort()).toEqual([...RUNTIME_NODE_OPTIONS].sort());
    expect(RUNTIME_NODE_OPTIONS).toContain('--max-old-space-size=1024');
  });
});
