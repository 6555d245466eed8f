/**
 * A tiny zip writer for tests (no zip-writing library is installed): local file headers, data,
 * central directory and end record, written by hand so a test can also write what no honest
 * tool writes: symbolic links, `../` paths, encrypted flags, sizes that lie, zip bombs.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

/** One entry to write. */
export interface ZipEntrySpec {
  /** The path as stored (a trailing `/` makes a folder entry). */
  name: string;
  /** The content (default empty). */
  data?: Buffer | string;
  /** Compression: `deflate` (default for files) or `store`. */
  method?: 'deflate' | 'store';
  /** Already-deflated bytes to write as they are (with `method: 'deflate'`). */
  compressed?: Buffer;
  /** The uncompressed size to declare instead of the real one. */
  declaredSize?: number;
  /** The CRC-32 to declare instead of the real one. */
  crc?: number;
  /** Unix mode to put in the external attributes (e.g. `0o120777` for a symbolic link). */
  unixMode?: number;
  /** General purpose flags to add (bit 0: encrypted). */
  flags?: number;
}

/** Writes a zip of `entries` (UTF-8 names, "made by" Unix). */
export function zipOf(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const name = Buffer.from(spec.name, 'utf8');
    const data = typeof spec.data === 'string' ? Buffer.from(spec.data) : (spec.data ?? Buffer.alloc(0));
    const folder = spec.name.endsWith('/');
    const method = spec.method ?? (folder ? 'store' : 'deflate');
    const body = method === 'store' ? data : (spec.compressed ?? deflateRawSync(data));
    const size = spec.declaredSize ?? data.length;
    const crc = spec.crc ?? (spec.compressed ? 0 : crc32(data));
    const flags = 0x800 | (spec.flags ?? 0);
    const methodCode = method === 'store' ? 0 : 8;
    const mode = spec.unixMode ?? (folder ? 0o040755 : 0o100644);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(methodCode, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(methodCode, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(((mode << 16) | (folder ? 0x10 : 0)) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A small valid app: `index.html` plus the given files. */
export function appZip(files: Record<string, string | Buffer> = {}, prefix = ''): Buffer {
  const all: Record<string, string | Buffer> = { 'index.html': '<!doctype html><title>App</title><script src="app.js"></script>', ...files };
  return zipOf(Object.entries(all).map(([name, data]) => ({ name: `${prefix}${name}`, data })));
}

/**
 * The raw deflate of `bytes` zero bytes, made by streaming (2 GB of zeros deflate to about
 * 2 MB); cached under the OS temp dir, since making it takes a few seconds.
 */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
  const dir = join(tmpdir(), 'cartwheel-zip-fixtures');
  const file = join(dir, `zeros-${bytes}.deflate`);
  if (existsSync(file)) return readFileSync(file);
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const block = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < bytes; written += block.length) {
    const piece = bytes - written >= block.length ? block : block.subarray(0, bytes - written);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const result = Buffer.concat(chunks);
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, result);
  renameSync(`${file}.${process.pid}`, file);
  return result;
}

/** Two gigabytes. */
export const TWO_GB = 2 * 1024 * 1024 * 1024;

/** A bomb that lies: `evil.bin` declares 10 bytes but inflates to 2 GB of zeros. */
export async function lyingBomb(): Promise<Buffer> {
  return zipOf([{ name: 'index.html', data: '<p>hi</p>' }, { name: 'evil.bin', compressed: await deflatedZeros(TWO_GB), declaredSize: 10 }]);
}

/** A bomb that tells the truth: `zeros.bin` declares 2 GB from a tiny deflate stream (refused before inflating). */
export function honestBomb(): Buffer {
  // The data need not hold 2 GB: the declared ratio is refused before anything is inflated.
  return zipOf([{ name: 'index.html', data: '<p>hi</p>' }, { name: 'zeros.bin', compressed: deflateRawSync(Buffer.alloc(1024 * 1024)), declaredSize: TWO_GB - 1 }]);
}

/**
 * A zip holding `files` (path → content) in the given order, deflated: what an app or function
 * package looks like.
 *
 * @example zipFiles({ 'index.html': '<h1>Hi</h1>', 'assets/app.js': Buffer.from('...') })
 */
export function zipFiles(files: Record<string, string | Buffer>): Buffer {
  return zipOf(Object.entries(files).map(([name, data]) => ({ name, data })));
}
