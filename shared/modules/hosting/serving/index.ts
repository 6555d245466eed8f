/**
 * App serving (hosting.md §6 to §8): the rules that answer a request under an app address,
 * the platform-owned files, and the source they read from. What the runtimes and handlers use.
 */
export { accountObject, browserInfo, currencyList, dateUtc, localeOf } from './account-settings';
export { readAccountFacts } from './account-facts';
export { CALLBACK_HEADERS, CALLBACK_PAGE, CALLBACK_SCRIPT, CALLBACK_SCRIPT_HASH } from './callback-page';
export { CONVERSION_SCRIPT, PAGEVIEW_SCRIPT, scriptSafeJson, settingsFile, settingsScript } from './injected-files';
export { ALLOWED_METHODS, HTML_TYPE, METHOD_NOT_ALLOWED_PAGE, NOT_FOUND_PAGE, SECURITY_HEADERS } from './pages';
export { cacheControlOf, decodeServedPath, IMMUTABLE, isHashedName, NO_CACHE, NO_STORE, SHORT_LIVED } from './paths';
export { notModified, serveAppRequest, serveVersionMiss, strongEtag, type VersionMiss } from './serve';
export { hostingSource, type SourceCacheLimits } from './source';
export type { AccountFacts, AliasPointer, AppRecord, AppRequest, AppResponse, HostingSource, VersionManifest } from './types';
export { publicAccountJsonAction, publicAccountScriptAction, publicAccountSettingsAction } from './public-settings-actions';
export { INDEX_APPENDED_HEADER, serveCdnOrigin, toFunctionUrlResult } from './cdn-origin';
export { edgePointerKey, edgePointerValue } from '../../../platform/edge-pointer-format';
