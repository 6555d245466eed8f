/**
 * Printed receipts in the cloud (conventions.md §4): the orders family's Lambda bundle carries
 * the fonts a receipt embeds in `fonts/` (the bundled code finds them there from its own URL,
 * byte for byte the package's), pdfkit inside it loads as an ES module beside the bundle's own
 * `require` banner, and families that print nothing carry no fonts. Synthesized with the real
 * orders family and the fallback only, so only those two are bundled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { queues } from '../../shared/app/queues';
import { families, routes } from '../../shared/app/routes';
import { DOCUMENT_FONT_FILES, DOCUMENT_FONTS_FOLDER, documentFontFolder } from '../../shared/flows/receipts/fonts';
import { bundleFolderOf, synthesize, synthTimeout, type Synthesized } from './synthesize';

describe('receipt fonts in the orders bundle', () => {
  let synth: Synthesized;
  const bundleOf = (name: string): string => bundleFolderOf(synth, name);

  beforeAll(() => {
    synth = synthesize({
      families: { orders: families.orders, fallback: families.fallback },
      fallbackFamily: 'fallback',
      routes: routes.filter((route) => route.family === 'orders'),
      // Only the two families are bundled.
      queues: queues.map(({ consumer: _consumer, ...queue }) => queue),
      schedules: [],
    });
  }, synthTimeout);

  it('declares the fonts on the family that serves GET /orders/{order_id}', () => {
    expect(routes.find((route) => route.method === 'GET' && route.path === '/api/v1/orders/{order_id}')?.family).toBe('orders');
    expect(families.orders.documentFonts).toBe(true);
  });

  it('ships DejaVu Sans regular and bold in fonts/ beside index.mjs, where the bundled code looks first', () => {
    const bundle = bundleOf('orders');
    const packaged = documentFontFolder();
    for (const file of Object.values(DOCUMENT_FONT_FILES)) {
      const shipped = path.join(bundle, DOCUMENT_FONTS_FOLDER, file);
      expect(existsSync(shipped), file).toBe(true);
      expect(readFileSync(shipped).equals(readFileSync(path.join(packaged, file))), file).toBe(true);
    }
    // No node_modules in a Lambda bundle: the package is not there to fall back on.
    expect(existsSync(path.join(bundle, 'node_modules'))).toBe(false);
    expect(documentFontFolder(pathToFileURL(path.join(bundle, 'index.mjs')).href)).toBe(path.join(bundle, `${DOCUMENT_FONTS_FOLDER}/`));
  });

  it('bundles pdfkit into an ES module that parses (no second createRequire beside the banner)', () => {
    const index = path.join(bundleOf('orders'), 'index.mjs');
    const code = readFileSync(index, 'utf8');
    expect(code).toContain('bundleCreateRequire');
    expect(code).toMatch(/DejaVuSans-Bold\.ttf/);
    const check = spawnSync(process.execPath, ['--check', index], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it('gives families that print nothing no fonts', () => {
    expect(existsSync(path.join(bundleOf('fallback'), DOCUMENT_FONTS_FOLDER))).toBe(false);
  });
});
