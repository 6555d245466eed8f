/**
 * Reading uploaded zips safely (hosting.md §3.2): files come out lazily, one at a time; the
 * directory's lies and dangers are refused before anything is inflated (paths, links,
 * encryption, counts, declared sizes and ratios), and what only inflating shows (an entry that
 * expands past its declared size, a wrong checksum) is refused while counting, after at most
 * the declared bytes.
 */
import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { openZipPackage, PACKAGE_LIMITS, unsafePathReason, type ZipLimits } from '../../../shared/core/packages/zip-package';
import { honestBomb, lyingBomb, zipOf, type ZipEntrySpec } from '../../support/zip-writer';
import { refusal } from '../../support/refusal';

/** Opens a zip of `entries` and reads every file. */
async function readAll(entries: ZipEntrySpec[] | Buffer, limits?: ZipLimits): Promise<Record<string, string>> {
  const zip = await openZipPackage(Buffer.isBuffer(entries) ? entries : zipOf(entries), limits);
  const out: Record<string, string> = {};
  for (const file of zip.files) out[file.path] = (await zip.read(file)).toString();
  return out;
}

describe('openZipPackage: reading', () => {
  it('reads stored and deflated files lazily, leaving folder entries out, paths as they are', async () => {
    const zip = await openZipPackage(
      zipOf([
        { name: 'index.html', data: '<h1>Hi</h1>' },
        { name: 'assets/', data: '' },
        { name: 'assets/App.JS', data: 'x'.repeat(5000), method: 'store' },
        { name: 'café/ü.txt', data: 'ünïcode' },
      ]),
    );
    expect(zip.files.map((file) => file.path)).toEqual(['index.html', 'assets/App.JS', 'café/ü.txt']);
    expect(zip.totalBytes).toBe(11 + 5000 + Buffer.byteLength('ünïcode'));
    expect(zip.files[1]).toMatchObject({ bytes: 5000, compressedBytes: 5000 });
    // Any order, any number of times: each read inflates its own entry.
    expect((await zip.read(zip.files[2]!)).toString()).toBe('ünïcode');
    expect((await zip.read(zip.files[0]!)).toString()).toBe('<h1>Hi</h1>');
    expect((await zip.read(zip.files[0]!)).toString()).toBe('<h1>Hi</h1>');
  });

  it('reads an empty file and a zip with no files', async () => {
    expect(await readAll([{ name: 'empty.txt', data: '' }])).toEqual({ 'empty.txt': '' });
    expect((await openZipPackage(zipOf([]))).files).toEqual([]);
  });
});

describe('openZipPackage: refusals before inflating', () => {
  it.each([
    ['not a zip', Buffer.from('PK but not really a zip file at all'), 'unreadable'],
    ['an empty body', Buffer.alloc(0), 'unreadable'],
    ['a cut-off zip', zipOf([{ name: 'a.txt', data: 'hello world' }]).subarray(0, 40), 'unreadable'],
  ])('%s: 400 unreadable', async (_name, data, reason) => {
    expect(await refusal(openZipPackage(data))).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'file', reason } });
  });

  it.each([
    ['../evil', 'has a .. segment'],
    ['a/../../evil', 'has a .. segment'],
    ['/etc/passwd', 'is absolute'],
    ['C:/Windows/win.ini', 'starts with a drive letter'],
    ['c:evil', 'starts with a drive letter'],
    ['a\\b.txt', 'contains a backslash'],
    ['..\\evil', 'contains a backslash'],
    ['a\u0000b', 'contains a NUL character'],
    ['line\nbreak', 'contains a control character'],
    ['a//b', 'has an empty or . segment'],
    ['./index.html', 'has an empty or . segment'],
  ])('the path %j: 400 unsafe_path (%s)', async (path, why) => {
    expect(unsafePathReason(path)).toBe(why);
    const error = await refusal(openZipPackage(zipOf([{ name: 'index.html', data: 'ok' }, { name: path, data: 'x' }])));
    expect(error).toMatchObject({ status: 400, code: 'invalid_input', meta: { property: 'file', reason: 'unsafe_path', path } });
  });

  it('accepts ordinary paths, dots inside names included', () => {
    for (const path of ['index.html', 'a/b/c.min.js', '..hidden/x', 'x..y', '.well-known/z', 'dir/']) expect(unsafePathReason(path), path).toBeUndefined();
  });

  it.each([
    ['a symbolic link', 0o120777],
    ['a character device', 0o020644],
    ['a block device', 0o060644],
    ['a named pipe', 0o010644],
    ['a socket', 0o140755],
  ])('%s: 400 special_entry', async (_name, mode) => {
    const error = await refusal(openZipPackage(zipOf([{ name: 'index.html', data: 'ok' }, { name: 'link', data: '/etc/passwd', unixMode: mode }])));
    expect(error).toMatchObject({ status: 400, meta: { property: 'file', reason: 'special_entry', path: 'link' } });
  });

  it('refuses a folder entry with content', async () => {
    expect((await refusal(openZipPackage(zipOf([{ name: 'dir/', data: 'x', method: 'store' }])))).meta).toMatchObject({ reason: 'special_entry' });
  });

  it('refuses an encrypted entry', async () => {
    const error = await refusal(openZipPackage(zipOf([{ name: 'index.html', data: 'ok' }, { name: 'secret.txt', data: 'x', flags: 0x1 }])));
    expect(error).toMatchObject({ status: 400, meta: { reason: 'encrypted', path: 'secret.txt' } });
  });

  it('refuses a strong-encryption entry as encrypted', async () => {
    const error = await refusal(openZipPackage(zipOf([{ name: 'secret.txt', data: 'x', flags: 0x41 }])));
    expect(error.meta.reason).toBe('encrypted');
  });

  it('refuses an unknown compression method', async () => {
    const zip = zipOf([{ name: 'a.txt', data: 'hello' }]);
    // Method 12 (bzip2) in both the local header (offset 8) and the central record.
    zip.writeUInt16LE(12, 8);
    zip.writeUInt16LE(12, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10);
    expect((await refusal(openZipPackage(zip))).meta).toMatchObject({ reason: 'unsupported_compression', path: 'a.txt' });
  });

  it('refuses the same path twice', async () => {
    expect((await refusal(openZipPackage(zipOf([{ name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }])))).meta).toMatchObject({ reason: 'duplicate_path', path: 'a.txt' });
  });

  it('refuses more files than the limit, folders not counted', async () => {
    const limits = { ...PACKAGE_LIMITS, maxFiles: 3 };
    expect(Object.keys(await readAll([{ name: 'd/' }, { name: 'd/a' }, { name: 'd/b' }, { name: 'e/' }, { name: 'd/c' }], limits))).toHaveLength(3);
    expect((await refusal(readAll([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }], limits))).meta).toMatchObject({ reason: 'too_many_files' });
    // The directory alone says so, before any record is read.
    const many = Array.from({ length: 7 }, (_, index) => ({ name: `f${index}/` }));
    expect((await refusal(readAll(many, limits))).meta).toMatchObject({ reason: 'too_many_files' });
  });

  it('refuses 5,001 files with the real limit', async () => {
    const entries = Array.from({ length: 5001 }, (_, index) => ({ name: `f${index}.txt`, data: '', method: 'store' as const }));
    expect((await refusal(openZipPackage(zipOf(entries)))).meta).toMatchObject({ reason: 'too_many_files' });
  });

  it('refuses a path over 512 characters, and one over 900 UTF-8 bytes', async () => {
    expect(Object.keys(await readAll([{ name: 'a'.repeat(512), data: 'x' }]))).toHaveLength(1);
    expect((await refusal(readAll([{ name: 'a'.repeat(513), data: 'x' }]))).meta).toMatchObject({ reason: 'path_too_long' });
    expect((await refusal(readAll([{ name: '漢'.repeat(301), data: 'x' }]))).meta).toMatchObject({ reason: 'path_too_long' });
  });

  it('refuses an entry declaring a 2 GB expansion far over 1000:1, before inflating', async () => {
    const error = await refusal(openZipPackage(honestBomb()));
    expect(error).toMatchObject({ status: 400, meta: { property: 'file', reason: 'compression_ratio', path: 'zeros.bin' } });
  });

  it('refuses declared sizes adding up to more than 200 MB, before inflating', async () => {
    // 150 MB declared from 200 KB each (750:1, under the ratio limit); the data is never read.
    const compressed = randomBytes(200 * 1024);
    const entries = [{ name: 'a.bin', compressed, declaredSize: 150 * 1024 * 1024 }, { name: 'b.bin', compressed, declaredSize: 150 * 1024 * 1024 }];
    expect((await refusal(openZipPackage(zipOf(entries)))).meta).toMatchObject({ reason: 'too_large_uncompressed' });
  });

  it('judges the ratio of entries above 64 KB only (small repetitive files are normal)', async () => {
    const strict = { ...PACKAGE_LIMITS, maxRatio: 10 };
    const small = ' '.repeat(60 * 1024);
    expect(deflateRawSync(small).length * 10).toBeLessThan(small.length);
    expect((await readAll([{ name: 'spaces.txt', data: small }], strict))['spaces.txt']).toBe(small);
    const large = ' '.repeat(100 * 1024);
    expect((await refusal(readAll([{ name: 'spaces.txt', data: large }], strict))).meta).toMatchObject({ reason: 'compression_ratio' });
    expect((await readAll([{ name: 'spaces.txt', data: large }]))['spaces.txt']).toBe(large);
  });

  it('refuses a stored entry whose two sizes differ', async () => {
    expect((await refusal(openZipPackage(zipOf([{ name: 'a.txt', data: 'hello', method: 'store', declaredSize: 3 }]))))).toMatchObject({ meta: { reason: 'size_mismatch' } });
  });

  it('answers 422 account_limit_exceeded for a zip over the compressed limit', async () => {
    const error = await refusal(openZipPackage(Buffer.alloc(2048), { ...PACKAGE_LIMITS, maxPackageBytes: 1024 }));
    expect(error).toMatchObject({ status: 422, code: 'account_limit_exceeded', meta: { property: 'file', reason: 'too_large', limit_bytes: 1024 } });
    expect(PACKAGE_LIMITS.maxPackageBytes).toBe(50 * 1024 * 1024);
  });
});

describe('ZipPackage.read: counting while inflating', () => {
  it('refuses an entry that declares 10 bytes and inflates to 2 GB, after 11 bytes', async () => {
    const bomb = await lyingBomb();
    expect(bomb.length).toBeLessThan(4 * 1024 * 1024);
    const zip = await openZipPackage(bomb);
    expect(zip.totalBytes).toBe(10 + 9);
    const started = Date.now();
    const error = await refusal(zip.read(zip.files.find((file) => file.path === 'evil.bin')!));
    expect(error).toMatchObject({ status: 400, meta: { property: 'file', reason: 'size_mismatch', path: 'evil.bin' } });
    // Stopped at the declared size, not after 2 GB.
    expect(Date.now() - started).toBeLessThan(2000);
  }, 120_000);

  it('refuses an entry shorter than it declares', async () => {
    const zip = await openZipPackage(zipOf([{ name: 'a.txt', data: 'hello', declaredSize: 9 }]));
    expect((await refusal(zip.read(zip.files[0]!))).meta).toMatchObject({ reason: 'size_mismatch' });
  });

  it('refuses an entry whose CRC-32 does not match', async () => {
    const zip = await openZipPackage(zipOf([{ name: 'a.txt', data: 'hello', crc: 12345 }]));
    expect((await refusal(zip.read(zip.files[0]!))).meta).toMatchObject({ reason: 'unreadable', path: 'a.txt' });
  });

  it('refuses corrupt deflate data as unreadable', async () => {
    const zip = await openZipPackage(zipOf([{ name: 'a.txt', compressed: Buffer.from([0xff, 0xff, 0xff, 0xff]), declaredSize: 5 }]));
    expect((await refusal(zip.read(zip.files[0]!))).meta).toMatchObject({ reason: 'unreadable' });
  });
});
