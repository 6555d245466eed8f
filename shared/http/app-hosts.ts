/**
 * App hosts (hosting.md §1): `<account_id>.<apps domain>`, one per account. Host names are
 * matched case-insensitively and without their port (browsers lower-case them; account ids
 * are upper case).
 */

/** A host without its `:port`. */
function withoutPort(host: string): string {
  return host.replace(/:\d*$/, '');
}

/**
 * The account whose app host `host` is, in upper case, or undefined when it is not an app
 * host (or no apps domain is configured).
 *
 * @example appHostAccount('xg5908xmx3mh.apps.localhost:4000', 'apps.localhost:4000') → 'XG5908XMX3MH'
 */
export function appHostAccount(host: string | undefined, appsDomain: string): string | undefined {
  const domain = withoutPort(appsDomain).toLowerCase();
  if (!host || !domain) return undefined;
  const hostname = withoutPort(host).toLowerCase();
  if (!hostname.endsWith(`.${domain}`)) return undefined;
  const label = hostname.slice(0, -(domain.length + 1));
  return /^[0-9a-z]{1,63}$/.test(label) ? label.toUpperCase() : undefined;
}

/**
 * Tenant isolation of the API proxied on app hosts: a token may be used on an app host only
 * when it belongs to that host's account. Any other host accepts any token.
 */
export function tokenFitsHost(tokenAccountId: string, host: string, appsDomain: string): boolean {
  const hostAccount = appHostAccount(host, appsDomain);
  return hostAccount === undefined || hostAccount === tokenAccountId.toUpperCase();
}
