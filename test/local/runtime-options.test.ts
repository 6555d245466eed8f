/**
 * `npm start` and the runtime the tests and benches spawn run with the same Node options, so
 * what bench:soak measures (memory under a 1 GiB heap cap) is what a developer's runtime does;
 * bench:checkout runs a baseline commit with that commit's own `npm start` options.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNTIME_NODE_OPTIONS, startNodeOptions } from '../support/runtime-process';

describe('local runtime Node options', () => {
  it('are the same for npm start and the spawned runtime', () => {
    expect([...startNodeOptions()].sort()).toEqual([...RUNTIME_NODE_OPTIONS].sort());
    expect(RUNTIME_NODE_OPTIONS).toContain('--max-old-space-size=1024');
    expect(RUNTIME_NODE_OPTIONS).toContain('--experimental-async-context-frame');
  });

  const trees: string[] = [];
  afterAll(() => trees.forEach((root) => rmSync(root, { recursive: true, force: true })));

  it("reads another checkout's npm start options, and none where it sets none", () => {
    const tree = (start: string) => {
      const root = mkdtempSync(join(tmpdir(), 'start-options-'));
      trees.push(root);
      writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { start } }));
      return root;
    };
    expect(startNodeOptions(tree("NODE_OPTIONS='--disable-warning=ExperimentalWarning' tsx infra/local/main.ts"))).toEqual(['--disable-warning=ExperimentalWarning']);
    expect(startNodeOptions(tree("NODE_OPTIONS='--max-old-space-size=1024' exec node --import tsx/esm infra/local/main.ts"))).toEqual(['--max-old-space-size=1024']);
    expect(startNodeOptions(tree("NODE_OPTIONS='--max-old-space-size=512' exec node infra/local/launch.mjs"))).toEqual(['--max-old-space-size=512']);
    expect(startNodeOptions(tree('tsx infra/local/main.ts'))).toEqual([]);
  });

  it("runs the runtime as npm's own child: no shell or tsx wrapper in between to die on, relay or SIGKILL on a signal (the launcher runs the build in its own process)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.start).toMatch(/ exec node infra\/local\/launch\.mjs$/);
  });
});
