/**
 * CORS (conventions.md section 16). Preflights are answered without a token; real requests
 * from a browser origin are checked against the account's allow-list after authentication.
 * Header values are computed once at module load.
 */
/** Headers of a preflight answer, minus the echoed origin. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Accept-Language, Idempotency-Key, X-Requested-With',
  'Access-Control-Max-Age': '600',
  Vary: 'Origin',
};

/** Headers every response to a request with an `Origin` carries, minus the echoed origin. */
export const EXPOSE_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Expose-Headers': 'X-Token-Expires-In-Seconds, Location, Retry-After, X-Request-Id, Idempotent-Replayed',
  Vary: 'Origin',
};

/** What the origin check needs to know about the request. */
export interface OriginCheck {
  origin: string;
  scheme: string;
  host: string;
  accountId: string;
  /** The apps domain: the account's app host `<account_id>.<appsDomain>` may call. */
  appsDomain: string;
  /** Loads the account's `cors_allowed_origins`; only called when the cheap rules do not decide. */
  allowList: () => Promise<readonly string[]>;
}

/**
 * Whether an origin may call the API for an account: its own scheme and host, any
 * `localhost`/`127.0.0.1` origin, the account's app hosts, or the account's allow-list.
 */
export async function isOriginAllowed(check: OriginCheck): Promise<boolean> {
  const { origin } = check;
  if (origin === `${check.scheme}://${check.host}`) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin === 'null' || url.origin.toLowerCase() !== origin.toLowerCase()) return false;
  if (url.hostname === 'localhost' || url.hostname === '127.0.0.1') return true;
  if (url.host.toLowerCase() === `${check.accountId}.${check.appsDomain}`.toLowerCase()) return true;
  const allowed = await check.allowList();
  return allowed.includes(origin);
}
