/**
 * The CDN's copy of the alias pointers (hosting.md §10): a CloudFront KeyValueStore that the
 * apps edge function reads on every request for app files. The table stays the source of
 * truth; deploy, rollback and alias changes copy the pointer here.
 *
 *   key   `<account_id>/<alias>`        e.g. `XG5908XMX3MH/shop`
 *   value `<app_id>/<version_id>`       e.g. `YGFJSXQ4ZHDC/X6V5HEYZGTXA`
 *
 * An alias that serves nothing (no deployed version, deleted app or alias) has no key.
 */

/** The store key of an alias. */
export function edgePointerKey(accountId: string, alias: string): string {
  return `${accountId}/${alias}`;
}

/** The store value of a served version: the rest of its bucket prefix after `apps/<account_id>/`. */
export function edgePointerValue(appId: string, versionId: string): string {
  return `${appId}/${versionId}`;
}
