/**
 * Reading uploaded zip packages safely (hosting.md §3.2; hosted functions use it too), on yauzl.
 *
 * `openZipPackage` reads the central directory only and refuses, before a byte is inflated,
 * everything the directory already gives away: an unreadable zip, unsafe paths (absolute,
 * drive letters, backslashes, `.`/`..`/empty segments, NUL and other control characters),
 * symbolic links and other special entries (the Unix mode in the external attributes),
 * encrypted entries, unknown compression, too many files, paths too long, duplicate paths,
 * an absurd declared compression ratio and declared sizes over the budget. The zip larger than
 * allowed is 422 account_limit_exceeded; every other refusal is 400 invalid_input
 * (`meta.property: 'file'`, `meta.reason`, and `meta.path` naming the entry at fault).
 *
 * `read(file)` then inflates one file at a time, lazily, counting bytes as they come and never
 * trusting the headers: a file that inflates past its declared size is cut off at that point
 * (a 2 GB bomb that declares 10 bytes costs 11 bytes of inflating) and refused, as is one that
 * comes out shorter or with another CRC-32. Since every file is held to its declared size and
 * the declared sizes add up to at most the budget, the whole package never inflates beyond it.
 *
 * @example
 *   const zip = await openZipPackage(upload.data);
 *   for (const file of zip.files) store(file.path, await zip.read(file));
 */
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { InvalidPackageError, PackageTooLargeError } from './errors';

/** What a package may be. */
export interface ZipLimits {
  /** Largest zip, compressed (a larger one is 422 account_limit_exceeded). */
  maxPackageBytes: number;
  /** Most bytes all files together may inflate to. */
  maxTotalBytes: number;
  /** Most files (directories are not counted). */
  maxFiles: number;
  /** Longest path, in characters. */
  maxPathLength: number;
  /** Largest declared expansion of one entry (uncompressed : compressed), for entries above `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries up to this size are never refused for their ratio (small, highly repetitive files are normal). */
  ratioFloorBytes: number;
}

/** The package limits of hosting.md §3.2: 50 MB compressed, 200 MB uncompressed, 5,000 files, paths of 512 characters. */
export const PACKAGE_LIMITS: ZipLimits = {
  maxPackageBytes: 50 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFiles: 5000,
  maxPathLength: 512,
  maxRatio: 1000,
  ratioFloorBytes: 64 * 1024,
};

/** The package limits of functions.md §4: 50 MB compressed, 250 MB uncompressed, 10,000 files, paths of 512 characters. */
export const FUNCTION_PACKAGE_LIMITS: ZipLimits = {
  ...PACKAGE_LIMITS,
  maxTotalBytes: 250 * 1024 * 1024,
  maxFiles: 10_000,
};

/** Longest path in UTF-8 bytes (object keys are limited to 1,024 bytes with their prefix). */
const MAX_PATH_UTF8_BYTES = 900;

/** One regular file of a package, as its central directory declares it. */
export interface ZipFileEntry {
  /** The path in the zip, as it is (case kept), with `/` separators. */
  path: string;
  /** Declared uncompressed size. */
  bytes: number;
  /** Compressed size in the zip. */
  compressedBytes: number;
}

/** A zip whose directory passed every check: its files, readable one at a time. */
export interface ZipPackage {
  /** Size of the zip itself. */
  packageBytes: number;
  /** The regular files in directory order (directory entries left out). */
  files: readonly ZipFileEntry[];
  /** Sum of the declared sizes of `files` (at most the budget). */
  totalBytes: number;
  /** The content of one file; refused (400) when it does not inflate to exactly its declared size and CRC. */
  read(file: ZipFileEntry): Promise<Buffer>;
}

/** Unix file type bits of `st_mode`. */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** General purpose flag bits: encrypted, strong encryption. */
const FLAG_ENCRYPTED = 0x1;

/** The reason a path is unsafe, or undefined when it is fine (directory paths end with `/`). */
export function unsafePathReason(path: string): string | undefined {
  if (path.includes('\u0000')) return 'contains a NUL character';
  if (/[\u0001-\u001f\u007f]/.test(path)) return 'contains a control character';
  if (path.includes('\\')) return 'contains a backslash';
  if (path.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'starts with a drive letter';
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/');
  if (segments.some((segment) => segment === '..')) return 'has a .. segment';
  if (segments.some((segment) => segment === '.' || segment === '')) return 'has an empty or . segment';
  return undefined;
}

/** What the external attributes say an entry is: its Unix type when they carry one. */
function unixType(entry: Entry): number {
  return ((entry.externalFileAttributes >>> 16) & S_IFMT) >>> 0;
}

/** Opens a zip held in memory; yauzl's own size checks are off (ours count while inflating). */
function openZip(zip: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true, decodeStrings: false, validateEntrySizes: false, autoClose: false }, (error, zipfile) => {
      if (error || !zipfile) reject(unreadable(error));
      else resolve(zipfile);
    });
  });
}

function unreadable(error: Error | null | undefined): InvalidPackageError {
  const detail = error?.message ?? 'unknown error';
  if (/strong encryption/i.test(detail)) return new InvalidPackageError('encrypted', 'The package holds an encrypted entry.');
  return new InvalidPackageError('unreadable', `The file is not a readable zip package (${detail}).`);
}

/** Every central directory record of an open zip, in order. */
function readEntries(zipfile: ZipFile, maxEntries: number): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    const cleanup = () => zipfile.removeAllListeners();
    zipfile.on('entry', (entry: Entry) => {
      entries.push(entry);
      if (entries.length > maxEntries) {
        cleanup();
        reject(new InvalidPackageError('too_many_files', `The package holds more than ${maxEntries} entries.`));
        return;
      }
      zipfile.readEntry();
    });
    zipfile.on('end', () => {
      cleanup();
      resolve(entries);
    });
    zipfile.on('error', (error: Error) => {
      cleanup();
      reject(unreadable(error));
    });
    zipfile.readEntry();
  });
}

/**
 * Opens a zip package and checks its directory against `limits` (see the module comment);
 * nothing is inflated yet. Throws `PackageTooLargeError` (422) or `InvalidPackageError` (400).
 */
export async function openZipPackage(zip: Buffer, limits: ZipLimits = PACKAGE_LIMITS): Promise<ZipPackage> {
  if (zip.length > limits.maxPackageBytes) throw new PackageTooLargeError(limits.maxPackageBytes);
  const zipfile = await openZip(zip);
  // Directories are entries too: allow as many of them as files before reading any record.
  const maxEntries = limits.maxFiles * 2;
  if (zipfile.entryCount > maxEntries) throw new InvalidPackageError('too_many_files', `The package holds more than ${limits.maxFiles} files.`);
  const entries = await readEntries(zipfile, maxEntries);
  const files: ZipFileEntry[] = [];
  const byFile = new Map<ZipFileEntry, Entry>();
  const seen = new Set<string>();
  let totalBytes = 0;
  for (const entry of entries) {
    const path = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
    const at = { path: path.slice(0, limits.maxPathLength) };
    if (entry.generalPurposeBitFlag & FLAG_ENCRYPTED) throw new InvalidPackageError('encrypted', `The entry ${quoted(path)} is encrypted.`, at);
    const unsafe = unsafePathReason(path);
    if (unsafe) throw new InvalidPackageError('unsafe_path', `The entry path ${quoted(path)} ${unsafe}.`, at);
    if (path.length > limits.maxPathLength || Buffer.byteLength(path) > MAX_PATH_UTF8_BYTES) {
      throw new InvalidPackageError('path_too_long', `An entry path is longer than ${limits.maxPathLength} characters.`, at);
    }
    const type = unixType(entry);
    const isDirectory = path.endsWith('/') || type === S_IFDIR;
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) {
      const kind = type === S_IFLNK ? 'a symbolic link' : 'a special file (not a regular file or folder)';
      throw new InvalidPackageError('special_entry', `The entry ${quoted(path)} is ${kind}.`, at);
    }
    if (isDirectory) {
      // A folder with content, or a folder type under a file's name, is not something a package holds.
      if (entry.uncompressedSize !== 0 || !path.endsWith('/')) throw new InvalidPackageError('special_entry', `The entry ${quoted(path)} is a folder with content.`, at);
      continue;
    }
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new InvalidPackageError('unsupported_compression', `The entry ${quoted(path)} uses compression method ${entry.compressionMethod}; only stored and deflated entries are read.`, at);
    }
    if (seen.has(path)) throw new InvalidPackageError('duplicate_path', `The package holds ${quoted(path)} twice.`, at);
    seen.add(path);
    if (files.length >= limits.maxFiles) throw new InvalidPackageError('too_many_files', `The package holds more than ${limits.maxFiles} files.`);
    const bytes = entry.uncompressedSize;
    if (bytes > limits.ratioFloorBytes && bytes > limits.maxRatio * Math.max(1, entry.compressedSize)) {
      throw new InvalidPackageError('compression_ratio', `The entry ${quoted(path)} declares an expansion of more than ${limits.maxRatio}:1.`, at);
    }
    if (bytes > limits.maxTotalBytes) throw new InvalidPackageError('too_large_uncompressed', `The entry ${quoted(path)} declares more than ${mb(limits.maxTotalBytes)} uncompressed.`, at);
    if (entry.compressionMethod === 0 && entry.compressedSize !== bytes) {
      throw new InvalidPackageError('size_mismatch', `The stored entry ${quoted(path)} declares two different sizes.`, at);
    }
    totalBytes += bytes;
    if (totalBytes > limits.maxTotalBytes) throw new InvalidPackageError('too_large_uncompressed', `The package declares more than ${mb(limits.maxTotalBytes)} uncompressed.`);
    const file: ZipFileEntry = { path, bytes, compressedBytes: entry.compressedSize };
    files.push(file);
    byFile.set(file, entry);
  }
  return {
    packageBytes: zip.length,
    files,
    totalBytes,
    read(file) {
      const entry = byFile.get(file);
      if (!entry) throw new Error(`${file.path} is not a file of this package`);
      return inflate(zipfile, entry, file);
    },
  };
}

/** Inflates one entry, counting: stops as soon as it passes its declared size. */
function inflate(zipfile: ZipFile, entry: Entry, file: ZipFileEntry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zipfile.openReadStream(entry, (error, stream) => {
      if (error || !stream) return reject(unreadable(error));
      const chunks: Buffer[] = [];
      let received = 0;
      let crc = 0;
      let settled = false;
      const fail = (refusal: InvalidPackageError) => {
        if (settled) return;
        settled = true;
        stream.removeAllListeners('data');
        (stream as { destroy?: () => void }).destroy?.();
        reject(refusal);
      };
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received > file.bytes) {
          fail(new InvalidPackageError('size_mismatch', `The entry ${quoted(file.path)} expands beyond its declared size of ${file.bytes} bytes.`, { path: file.path }));
          return;
        }
        crc = crc32(chunk, crc);
        chunks.push(chunk);
      });
      stream.on('error', (streamError: Error) => fail(unreadable(streamError)));
      stream.on('end', () => {
        if (settled) return;
        if (received !== file.bytes) return fail(new InvalidPackageError('size_mismatch', `The entry ${quoted(file.path)} is shorter than its declared size.`, { path: file.path }));
        if (crc >>> 0 !== entry.crc32 >>> 0) return fail(new InvalidPackageError('unreadable', `The entry ${quoted(file.path)} does not match its checksum.`, { path: file.path }));
        settled = true;
        resolve(Buffer.concat(chunks, received));
      });
    });
  });
}

function quoted(path: string): string {
  const shown = path.length > 80 ? `${path.slice(0, 77)}...` : path;
  return JSON.stringify(shown);
}

function mb(bytes: number): string {
  return `${bytes / (1024 * 1024)} MB`;
}
