/**
 * The platform-owned files under every alias (hosting.md §7): the settings scripts and their
 * JSON twins, the custom CSS and JavaScript, and the analytics shims. Values are computed per
 * request from the records, never baked into stored files.
 */
import type { AppRecord } from './types';

/** JavaScript, exactly. */
export const JAVASCRIPT_TYPE = 'text/javascript; charset=utf-8';
/** CSS, exactly. */
export const CSS_TYPE = 'text/css; charset=utf-8';
/** JSON, exactly. */
export const JSON_TYPE = 'application/json';

/**
 * Compact JSON that can never close a script element or break a JavaScript string: `<`,
 * U+2028 and U+2029 written as escapes (still the same JSON value).
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The settings script of `name`: one line and a final newline. */
export function settingsScript(name: 'app' | 'account' | 'style', value: unknown): string {
  return `window.__settings = window.__settings || {}; window.__settings.${name} = ${scriptSafeJson(value)};\n`;
}

/** The app object: the app's settings, then `app_id`, `account_id`, `alias`, `test`, which win over settings keys of the same name. */
export function appObject(app: AppRecord, alias: string, test: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...app.settings };
  for (const key of ['app_id', 'account_id', 'alias', 'test']) delete settings[key];
  return { ...settings, app_id: app.app_id, account_id: app.account_id, alias, test };
}

/** `analytics/pageview.js`: a no-op hook kept for packages that call it. */
export const PAGEVIEW_SCRIPT = 'window.__pageview = window.__pageview || { recordPageLoad: function () {} };\n';

/** `analytics/conversion.js`: a no-op hook kept for packages that call it. */
export const CONVERSION_SCRIPT = 'window.__conversion = window.__conversion || { recordConversion: function (orderId) {} };\n';

/** Which platform-owned file a path below the alias names (settings, analytics), or undefined. */
export type InjectedFile =
  | { kind: 'settings'; name: 'app' | 'account' | 'style'; format: 'js' | 'json' }
  | { kind: 'custom'; name: 'style.css' | 'script.js' }
  | { kind: 'analytics'; body: string };

const INJECTED: Readonly<Record<string, InjectedFile>> = Object.freeze({
  'settings/app.js': { kind: 'settings', name: 'app', format: 'js' },
  'settings/app.json': { kind: 'settings', name: 'app', format: 'json' },
  'settings/account.js': { kind: 'settings', name: 'account', format: 'js' },
  'settings/account.json': { kind: 'settings', name: 'account', format: 'json' },
  'settings/style.js': { kind: 'settings', name: 'style', format: 'js' },
  'settings/style.json': { kind: 'settings', name: 'style', format: 'json' },
  'settings/style.css': { kind: 'custom', name: 'style.css' },
  'settings/script.js': { kind: 'custom', name: 'script.js' },
  'analytics/pageview.js': { kind: 'analytics', body: PAGEVIEW_SCRIPT },
  'analytics/conversion.js': { kind: 'analytics', body: CONVERSION_SCRIPT },
});

/** The injected file at a decoded path below the alias, if it is one. */
export function injectedFile(path: string): InjectedFile | undefined {
  return Object.hasOwn(INJECTED, path) ? INJECTED[path] : undefined;
}

/** Whether a decoded path lies in a platform-owned folder (`settings/...`, `analytics/...`): what is not injected there is 404. */
export function inPlatformFolder(path: string): boolean {
  return path.startsWith('settings/') || path.startsWith('analytics/');
}

/** The body and type of a settings object as its script or its JSON twin. */
export function settingsFile(name: 'app' | 'account' | 'style', format: 'js' | 'json', value: unknown): { body: string; contentType: string } {
  return format === 'js' ? { body: settingsScript(name, value), contentType: JAVASCRIPT_TYPE } : { body: scriptSafeJson(value), contentType: JSON_TYPE };
}
