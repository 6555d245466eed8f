/**
 * The limits of hosted apps (hosting.md §2, §3.2, §5), in a module without dependencies so the
 * route table (shared/app/routes.ts) can read them without pulling the apps code into every bundle.
 */

/** Largest zip `POST /apps/{id}/versions` accepts: 50 MB; larger answers 422 account_limit_exceeded. */
export const MAX_PACKAGE_BYTES = 50 * 1024 * 1024;

/** Room for the multipart framing around the zip (boundary lines, part headers, label and comments). */
export const PACKAGE_MULTIPART_ALLOWANCE_BYTES = 1024 * 1024;

/** Largest request body of a version upload (what the local gateway reads at most). */
export const MAX_VERSION_UPLOAD_BODY_BYTES = MAX_PACKAGE_BYTES + PACKAGE_MULTIPART_ALLOWANCE_BYTES;

/** Largest `settings` and `style`, as compact JSON in UTF-8 bytes: 64 KB each. */
export const MAX_SETTINGS_BYTES = 64 * 1024;

/** Largest `custom_css` and `custom_javascript`, in UTF-8 bytes: 256 KB each. */
export const MAX_CUSTOM_CODE_BYTES = 256 * 1024;

/** Most aliases of one app, the primary included. */
export const MAX_ALIASES_PER_APP = 10;

/** Longest app name. */
export const MAX_APP_NAME = 100;

/** Longest version label and comments. */
export const MAX_LABEL = 50;
export const MAX_COMMENTS = 1000;
