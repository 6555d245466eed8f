/**
 * The fonts printed documents embed: DejaVu Sans, regular and bold (the `dejavu-fonts-ttf`
 * package), which cover Latin, Greek and Cyrillic, so a customer's or product's name prints as
 * written. A Lambda bundle carries the two files in `fonts/` beside `index.mjs` (the cloud's
 * bundling copies them for the families that declare `documentFonts`); the source tree and the
 * local runtime's build read them from the package. Read once per process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package the fonts come from. */
export const DOCUMENT_FONT_PACKAGE = 'dejavu-fonts-ttf';

/** The files, as named in the package's `ttf/` folder and in a bundle's `fonts/` folder. */
export const DOCUMENT_FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;

/** The folder beside a bundle's `index.mjs` that holds the fonts. */
export const DOCUMENT_FONTS_FOLDER = 'fonts';

/** The font bytes, by weight. */
export interface DocumentFonts {
  regular: Buffer;
  bold: Buffer;
}

/** The package's `ttf/` folder as `from` resolves it, or undefined where the package is not installed (a Lambda bundle). */
function packageFontFolder(from: string): string | undefined {
  try {
    return path.join(path.dirname(createRequire(from).resolve(`${DOCUMENT_FONT_PACKAGE}/package.json`)), 'ttf');
  } catch {
    return undefined;
  }
}

/**
 * The folder holding both font files: `fonts/` beside the bundle (a Lambda function), else the
 * installed package's `ttf/`. Throws, naming where it looked, when neither has them.
 */
export function documentFontFolder(from: string = import.meta.url): string {
  const candidates = [fileURLToPath(new URL(`./${DOCUMENT_FONTS_FOLDER}/`, from)), packageFontFolder(from)].filter((folder): folder is string => folder !== undefined);
  const found = candidates.find((folder) => Object.values(DOCUMENT_FONT_FILES).every((file) => existsSync(path.join(folder, file))));
  if (!found) throw new Error(`The document fonts are missing (looked for ${Object.values(DOCUMENT_FONT_FILES).join(', ')} in ${candidates.join(', ')})`);
  return found;
}

let loaded: DocumentFonts | undefined;

/** The font bytes, read on first use and kept. */
export function documentFonts(): DocumentFonts {
  if (!loaded) {
    const folder = documentFontFolder();
    loaded = { regular: readFileSync(path.join(folder, DOCUMENT_FONT_FILES.regular)), bold: readFileSync(path.join(folder, DOCUMENT_FONT_FILES.bold)) };
  }
  return loaded;
}
