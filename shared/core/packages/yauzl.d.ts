/**
 * The part of yauzl's API the platform uses (yauzl ships no types and `@types/yauzl` is not a
 * dependency). See node_modules/yauzl/README.md for the full API.
 */
declare module 'yauzl' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  /** Options of `fromBuffer`. */
  export interface Options {
    lazyEntries?: boolean;
    decodeStrings?: boolean;
    validateEntrySizes?: boolean;
    strictFileNames?: boolean;
    autoClose?: boolean;
  }

  /** A central directory record. */
  export interface Entry {
    versionMadeBy: number;
    generalPurposeBitFlag: number;
    compressionMethod: number;
    crc32: number;
    compressedSize: number;
    uncompressedSize: number;
    externalFileAttributes: number;
    /** A Buffer when `decodeStrings` is false. */
    fileName: string | Buffer;
    fileNameRaw: Buffer;
    extraFields: Array<{ id: number; data: Buffer }>;
    isEncrypted(): boolean;
    canDecodeFileData(): boolean;
  }

  /** An open zip file. */
  export interface ZipFile extends EventEmitter {
    entryCount: number;
    readEntry(): void;
    openReadStream(entry: Entry, callback: (error: Error | null, stream?: Readable) => void): void;
    close(): void;
  }

  export function fromBuffer(buffer: Buffer, options: Options, callback: (error: Error | null, zipfile?: ZipFile) => void): void;
  export function getFileNameLowLevel(generalPurposeBitFlag: number, fileNameBuffer: Buffer, extraFields: Array<{ id: number; data: Buffer }>, strictFileNames: boolean): string;

  const yauzl: {
    fromBuffer: typeof fromBuffer;
    getFileNameLowLevel: typeof getFileNameLowLevel;
  };
  export default yauzl;
}
