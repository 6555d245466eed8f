/**
 * The code in docs/ as runnable pieces (issue 29: every snippet in the guides is run by a test).
 *
 * A guide's fenced blocks are read in order:
 * - ```sh blocks are the commands a reader types; a guide's sh blocks run as one bash script
 *   (`set -euo pipefail`), so a later block can use what an earlier one exported;
 * - ```js file=NAME and ```python file=NAME blocks are files the reader saves; they are written
 *   into the working directory before the script runs, and some sh block of the same guide must
 *   run them (the harness checks that the name appears in one);
 * - any other fence (json, http, text, console) shows an answer or a shape and is not run.
 * A js or python block without a file name is refused: it could not be run as written.
 *
 * A guide whose reader starts something beside `npm start` names it in a comment the page does
 * not show, `<!-- docs-test: needs stripe-standin -->`; the harness then starts it before the
 * runtime, as the guide tells the reader to (SERVICES lists what it knows how to start).
 */
import { readFileSync } from 'node:fs';

/** One fenced block of a guide. */
export interface Snippet {
  /** The fence's language (`sh`, `js`, `python`, `json`, ...). */
  lang: string;
  /** `file=NAME` from the fence, for files the reader saves. */
  file?: string;
  code: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
}

/** The runnable languages: commands, and the files they run. */
const RUN = new Set(['sh', 'js', 'python']);

/** Every fenced block of a Markdown text, in order. */
export function snippetsOf(markdown: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w+)?((?:\s+\w+=\S+)*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++) body.push(lines[index]!);
    if (index >= lines.length) throw new Error(`line ${start + 1}: a code fence is never closed`);
    const file = /\bfile=(\S+)/.exec(open[2] ?? '')?.[1];
    snippets.push({ lang: open[1] ?? '', ...(file ? { file } : {}), code: `${body.join('\n')}\n`, line: start + 1 });
  }
  return snippets;
}

/** The services a guide may ask for: the Stripe stand-in (`npm run stripe:standin`). */
export const SERVICES = ['stripe-standin'] as const;
export type Service = (typeof SERVICES)[number];

/** The services a guide's `<!-- docs-test: needs ... -->` comments name; an unknown one is refused. */
export function servicesOf(markdown: string): Service[] {
  const named = [...markdown.matchAll(/<!--\s*docs-test:\s*needs\s+([^>]*?)\s*-->/g)].flatMap((match) => match[1]!.split(/[\s,]+/).filter(Boolean));
  for (const name of named) {
    if (!(SERVICES as readonly string[]).includes(name)) throw new Error(`docs-test needs an unknown service: ${name} (known: ${SERVICES.join(', ')})`);
  }
  return [...new Set(named)] as Service[];
}

/** What a guide asks the harness to run: the files to save, the one script and the services it needs. */
export interface GuideRun {
  files: { name: string; code: string }[];
  script: string;
  services: Service[];
  /** How many blocks are run (sh blocks and saved files). */
  runnable: number;
}

/** Reads a guide and checks that every runnable block can and will be run. */
export function guideRun(path: string): GuideRun {
  const markdown = readFileSync(path, 'utf8');
  const snippets = snippetsOf(markdown).filter((snippet) => RUN.has(snippet.lang));
  const files: GuideRun['files'] = [];
  const commands: string[] = [];
  for (const snippet of snippets) {
    if (snippet.lang === 'sh') {
      if (snippet.file) throw new Error(`${path}:${snippet.line}: an sh block is run, not saved; drop file=`);
      commands.push(`# ${path}:${snippet.line}\n${snippet.code}`);
    } else if (!snippet.file) {
      throw new Error(`${path}:${snippet.line}: a ${snippet.lang} block needs file=NAME so an sh block can run it`);
    } else {
      files.push({ name: snippet.file, code: snippet.code });
    }
  }
  const script = commands.join('\n');
  for (const file of files) {
    if (!script.includes(file.name)) throw new Error(`${path}: ${file.name} is saved but no sh block runs it`);
  }
  return { files, script: `set -euo pipefail\n${script}`, services: servicesOf(markdown), runnable: snippets.length };
}
