/** What the local runtime keeps in its object buckets, read straight from the data directory. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The keys under `prefix` in a local bucket (fauxqs keeps each object as a `<key>.data` file),
 * sorted; e.g. `storedObjectKeys(dataDir, 'apps', 'images/')` lists every image file.
 */
export function storedObjectKeys(dataDir: string, bucket: 'apps' | 'functions', prefix = ''): string[] {
  const root = join(dataDir, 'objects', 'buckets', `cartwheel-${bucket}`, 'objects');
  const walk = (dir: string): string[] => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names.flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name.endsWith('.data') ? [relative(root, join(dir, name)).slice(0, -5)] : []));
  };
  return walk(join(root, prefix)).sort();
}
