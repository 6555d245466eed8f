/**
 * The layering of architecture.md ("Top-level layout"), held by the imports themselves:
 *
 *   core ← store ← platform ← work ← http, rest, outbound ← modules ← flows ← app ← handlers ← infra
 *
 * A file imports only from its own layer or the layers to its left. Inside modules/, a module
 * reaches another only through that module's `index.ts` (its one door), and no module reaches a
 * flow; flows come in through the same door. The composition above them (app, handlers, infra)
 * may also open a module's `actions.ts` (the HTTP adapters its route families bind), its
 * `uploads.ts` (upload actions that carry native parsers, kept out of other bundles) and its
 * `module.ts` (the data-only manifest). Tests and benchmarks may reach anything.
 *
 * `ALLOWED` names the imports that still break a rule, each as `from -> to`. It may only shrink:
 * an entry that no longer matches an import fails the last test, so a fixed import leaves the list
 * in the change that fixes it.
 */
import { readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesEndingWith } from '../support/source-files';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Imports that still break a rule (`from -> to`, repository paths). Ends empty. */
const ALLOWED: string[] = [
];

/** The layers, left (lowest) to right. Folders of shared/ by name; then the top-level folders. */
const LAYERS: readonly (readonly string[])[] = [
  ['shared/core'],
  ['shared/store'],
  ['shared/platform'],
  ['shared/work'],
  ['shared/http', 'shared/rest', 'shared/outbound'],
  ['shared/modules'],
  ['shared/flows'],
  ['shared/app'],
  ['handlers'],
  ['infra'],
];

/** The layer index of a repository path, or undefined for files outside the layering. */
function layerOf(path: string): number | undefined {
  const index = LAYERS.findIndex((folders) => folders.some((folder) => path === folder || path.startsWith(`${folder}/`)));
  return index < 0 ? undefined : index;
}

/** The module a path belongs to (`shared/modules/<name>/...`), or undefined. */
function moduleOf(path: string): string | undefined {
  const match = /^shared\/modules\/([^/]+)\//.exec(path);
  return match?.[1];
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\1/g;

/** Resolves a relative specifier the way the bundler does (`x`, `x.ts`, `x/index.ts`). */
function resolveImport(fromFile: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split('\\').join('/');
  }
  return undefined;
}

/** Every relative import of the layered source, as repository paths. */
function imports(): Array<{ from: string; to: string }> {
  const files = ['shared', 'handlers', 'infra'].flatMap((dir) => filesEndingWith(join(root, dir), '.ts'));
  return files.flatMap((file) => {
    const from = relative(root, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(IMPORT)].flatMap((match) => {
      const to = resolveImport(from, match[2]!);
      return to ? [{ from, to }] : [];
    });
  });
}

/** The files of a module that code at `from` may import from outside the module. */
function doorsFor(from: string): readonly string[] {
  const composition = from.startsWith('shared/app/') || from.startsWith('handlers/') || from.startsWith('infra/');
  return composition ? ['index.ts', 'actions.ts', 'uploads.ts', 'module.ts'] : ['index.ts'];
}

/** The rule an import breaks, or undefined. */
function breach({ from, to }: { from: string; to: string }): string | undefined {
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer) return 'imports a layer above its own';
  const target = moduleOf(to);
  if (target && moduleOf(from) !== target && !doorsFor(from).some((door) => to === `shared/modules/${target}/${door}`)) return `reaches module ${target} past its door`;
  return undefined;
}

describe('layering (architecture.md "Top-level layout")', () => {
  const all = imports();
  const breaches = all.filter((edge) => breach(edge)).map(({ from, to }) => `${from} -> ${to}`);

  it('reads the imports it checks', () => {
    expect(all.length).toBeGreaterThan(500);
    expect(all).toContainEqual({ from: 'shared/store/entity.ts', to: 'shared/store/keys.ts' });
  });

  it('recognises each kind of breach', () => {
    expect(breach({ from: 'shared/store/keys.ts', to: 'shared/http/errors.ts' })).toMatch(/layer above/);
    expect(breach({ from: 'shared/modules/carts/carts.ts', to: 'shared/flows/checkout/pay-cart.ts' })).toMatch(/layer above/);
    expect(breach({ from: 'shared/modules/carts/carts.ts', to: 'shared/modules/catalog/products.ts' })).toMatch(/past its door/);
    expect(breach({ from: 'shared/flows/checkout/pay-cart.ts', to: 'shared/modules/carts/cart-store.ts' })).toMatch(/past its door/);
    expect(breach({ from: 'shared/flows/checkout/pay-cart.ts', to: 'shared/modules/carts/actions.ts' })).toMatch(/past its door/);
    expect(breach({ from: 'handlers/http/carts.ts', to: 'shared/modules/carts/actions.ts' })).toBeUndefined();
    expect(breach({ from: 'shared/modules/carts/carts.ts', to: 'shared/modules/catalog/index.ts' })).toBeUndefined();
    expect(breach({ from: 'shared/modules/carts/carts.ts', to: 'shared/modules/carts/cart-store.ts' })).toBeUndefined();
    expect(breach({ from: 'infra/local/runtime.ts', to: 'shared/store/table.ts' })).toBeUndefined();
  });

  it('has no import against the layering beyond the named exceptions', () => {
    expect(breaches.filter((edge) => !ALLOWED.includes(edge))).toEqual([]);
  });

  it("keeps each module's HTTP actions out of its door (they would pull the flows and the upload parsers into every importer)", () => {
    const leaks = all.filter(({ from, to }) => /^shared\/modules\/[^/]+\/index\.ts$/.test(from) && /(^|\/)(actions|uploads)\.ts$|-actions?\.ts$/.test(to));
    expect(leaks).toEqual([]);
  });

  it('names only exceptions that still exist (a fixed import leaves the list)', () => {
    expect(ALLOWED.filter((edge) => !breaches.includes(edge))).toEqual([]);
  });
});
