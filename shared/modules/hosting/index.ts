/** The hosting module's one door: what other modules, flows and the app may use of it. */
export { aliasDeclaration, appDeclaration, deploymentDeclaration, versionDeclaration } from './apps/apps';
export { edgePointerWork } from './apps/edge-pointer-work';
export { MAX_VERSION_UPLOAD_BODY_BYTES } from './apps/limits';
export { appFilesWork, versionFilesWork } from './apps/remove-app-files';
export { INDEX_APPENDED_HEADER } from './serving/cdn-origin';
export { hostingSource, publicAccountJsonAction, publicAccountScriptAction, publicAccountSettingsAction, serveAppRequest, serveCdnOrigin, type HostingSource } from './serving';
export { ALLOWED_METHODS, HTML_TYPE, METHOD_NOT_ALLOWED_PAGE, NOT_FOUND_PAGE, SECURITY_HEADERS } from './serving/pages';
export { ALIAS_PATTERN, NO_CACHE } from './serving/paths';
export { findAliasPointer } from './apps';
