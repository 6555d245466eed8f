/**
 * Every guide in docs/ runs as written (issue 29): its sh blocks as one bash script against a
 * fresh local runtime, in a working directory whose `.data` is that runtime's data directory
 * (as after `npm start` in a checkout), with the files its js and python blocks save. A guide
 * that needs the Stripe stand-in (`<!-- docs-test: needs stripe-standin -->`) gets it started
 * first and the runtime pointed at it (`CARTWHEEL_STRIPE_API_BASE`), as its text tells the reader;
 * the script finds it at `STRIPE_STANDIN`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStripeStandin, type StripeStandin } from '../../infra/local/stripe-standin/server';
import { guideRun, servicesOf, snippetsOf } from '../support/doc-snippets';
import { freePort, startRuntime, type RuntimeProcess } from '../support/runtime-process';

const DOCS = resolve(import.meta.dirname, '../../docs');
/**
 * Pages not run here: the index (no code), and the operator guide, whose commands need an AWS
 * account (test/infra synthesizes each configuration it describes instead).
 */
const NOT_RUN = new Set(['README.md', 'operations.md']);
const guides = readdirSync(DOCS).filter((name) => name.endsWith('.md') && !NOT_RUN.has(name)).sort();

const runtimes: RuntimeProcess[] = [];
afterAll(async () => {
  for (const runtime of runtimes) expect(await runtime.stop()).toBe(0);
});

/** Runs a bash script; resolves with its exit code and everything it printed. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('close', (code) => done({ code, output }));
  });
}

describe('the snippet reader', () => {
  it('reads fences in order with their language and file name', () => {
    const snippets = snippetsOf('# T\n\n```sh\necho hi\n```\n\n```js file=a.mjs\nconsole.log(1)\n```\n\n```json\n{}\n```\n');
    expect(snippets).toEqual([
      { lang: 'sh', code: 'echo hi\n', line: 3 },
      { lang: 'js', file: 'a.mjs', code: 'console.log(1)\n', line: 7 },
      { lang: 'json', code: '{}\n', line: 11 },
    ]);
  });

  it('refuses a js block it could not run, a saved file nothing runs, and an unclosed fence', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cartwheel-docs-'));
    try {
      const write = (text: string) => {
        const path = join(dir, 'guide.md');
        writeFileSync(path, text);
        return path;
      };
      expect(() => guideRun(write('```js\nconsole.log(1)\n```\n'))).toThrow(/needs file=NAME/);
      expect(() => guideRun(write('```python file=x.py\nprint(1)\n```\n\n```sh\necho no\n```\n'))).toThrow(/x\.py is saved but no sh block runs it/);
      expect(() => snippetsOf('```sh\necho\n')).toThrow(/never closed/);
      expect(servicesOf('# T\n<!-- docs-test: needs stripe-standin -->\n')).toEqual(['stripe-standin']);
      expect(servicesOf('# T\n')).toEqual([]);
      expect(() => servicesOf('<!-- docs-test: needs mainframe -->')).toThrow(/unknown service: mainframe/);
      expect(guideRun(write('```python file=x.py\nprint(1)\n```\n\n```sh\npython3 x.py\n```\n')).runnable).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the guides in docs/', () => {
  it('has guides to run, each listed in the index', () => {
    expect(guides.length).toBeGreaterThanOrEqual(9);
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    for (const guide of guides) expect(index, `docs/README.md does not list ${guide}`).toContain(`](${guide})`);
  });

  it.each(guides)('%s runs as written against a fresh runtime', async (guide) => {
    const run = guideRun(join(DOCS, guide));
    expect(run.runnable, `${guide} has no code to run`).toBeGreaterThan(0);
    const standin: StripeStandin | undefined = run.services.includes('stripe-standin') ? await startStripeStandin() : undefined;
    const work = mkdtempSync(join(tmpdir(), 'cartwheel-guide-'));
    try {
      const runtime = await startRuntime({
        env: { CARTWHEEL_RATE_PER_TOKEN: '100000/100000', CARTWHEEL_RATE_PER_IP: '100000/100000', ...(standin ? { CARTWHEEL_STRIPE_API_BASE: standin.url } : {}) },
      });
      runtimes.push(runtime);
      symlinkSync(runtime.dataDir, join(work, '.data'));
      for (const file of run.files) writeFileSync(join(work, file.name), file.code);
      const env = {
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
        WEBHOOK_PORT: String(await freePort()),
        ...(standin ? { STRIPE_STANDIN: standin.url } : {}),
      };
      const result = await bash(run.script, work, env);
      expect(result.code, `${guide} failed:\n${result.output}`).toBe(0);
    } finally {
      rmSync(work, { recursive: true, force: true });
      await standin?.close();
    }
  }, 180_000);
});
