/** What reading an uploaded package (a zip) can refuse, in the contract's codes (hosting.md §3.2, §12). */
import { ApiError } from '../errors';

/**
 * Why a zip is not accepted (`meta.reason`):
 * - `unreadable`: not a zip, cut short, corrupt data or a checksum that does not match;
 * - `unsafe_path`: an absolute path, a drive letter, a backslash, a `.`, `..` or empty segment, a control character;
 * - `path_too_long`: a path over the length limit;
 * - `special_entry`: a symbolic link, device, pipe or socket;
 * - `encrypted`: an encrypted entry;
 * - `unsupported_compression`: neither stored nor deflated;
 * - `too_many_files`: more files than the limit;
 * - `duplicate_path`: two entries with the same path;
 * - `compression_ratio`: an entry that declares an absurd expansion;
 * - `too_large_uncompressed`: the declared sizes add up to more than the budget;
 * - `size_mismatch`: an entry that inflates to more (or less) than it declares.
 */
export type ZipRefusal =
  | 'unreadable'
  | 'unsafe_path'
  | 'path_too_long'
  | 'special_entry'
  | 'encrypted'
  | 'unsupported_compression'
  | 'too_many_files'
  | 'duplicate_path'
  | 'compression_ratio'
  | 'too_large_uncompressed'
  | 'size_mismatch';

/** 400 invalid_input on the form field `file`: the package is not one the platform takes. */
export class InvalidPackageError extends ApiError {
  override name = 'InvalidPackageError';
  constructor(
    readonly reason: ZipRefusal | (string & {}),
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(400, 'invalid_input', message, { property: 'file', reason, ...extra });
  }
}

/** 422 account_limit_exceeded: the zip itself is larger than allowed. */
export class PackageTooLargeError extends ApiError {
  override name = 'PackageTooLargeError';
  constructor(limitBytes: number) {
    super(422, 'account_limit_exceeded', `The package is larger than ${limitBytes / (1024 * 1024)} MB.`, { property: 'file', reason: 'too_large', limit_bytes: limitBytes });
  }
}
