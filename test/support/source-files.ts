/** Walking the repository's own source for tests that check it as text or by import. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (absolute paths) whose name ends with `suffix`. */
export function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesEndingWith(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}
