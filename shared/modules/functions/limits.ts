/** The sizes of functions.md §4 and §7.1. */
import { FUNCTION_PACKAGE_LIMITS } from '../../core/packages/zip-package';

/** Largest zip (422 account_limit_exceeded above). */
export const MAX_FUNCTION_ZIP_BYTES = FUNCTION_PACKAGE_LIMITS.maxPackageBytes;

/** Largest management request body: the zip plus its form fields and boundaries. */
export const MAX_FUNCTION_UPLOAD_BODY_BYTES = MAX_FUNCTION_ZIP_BYTES + 1024 * 1024;

/** Largest invocation request body and function response (§7.1, §7.5). */
export const MAX_INVOKE_BYTES = 6 * 1024 * 1024;
