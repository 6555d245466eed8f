/**
 * The shapes the serving code works with: where it reads apps, versions and account facts
 * from (`HostingSource`, injected so tests pass fakes and the runtimes pass ./source), one
 * request under an app address and the answer to it.
 */
import type { AliasPointer, AppRecord, VersionManifest } from '../apps';

export type { AliasPointer, AppRecord, VersionManifest } from '../apps';

/** The public facts of an account that `settings/account.js` shows (hosting.md §7.1). */
export interface AccountFacts {
  company_name: string | null;
  support_email: string | null;
  support_website: string | null;
  /** ISO 4217 codes enabled in `/settings/payment`. */
  currencies: string[];
  allow_save_cards: boolean;
  /** The `payment_method_type` values of `/payments/options`. */
  payment_method_types: string[];
  /** The publishable key of each mode's Stripe connection (commerce.md §4.7), null where a mode has none; absent is null. */
  stripe_publishable_keys?: { live: string | null; test: string | null };
}

/** Everything the serving rules read, by the account the address names. */
export interface HostingSource {
  /** The pointer of an alias (one read, never cached: a deploy shows on the next request). */
  pointer(accountId: string, alias: string): Promise<AliasPointer | undefined>;
  /** The app record (settings, style, custom code). */
  app(accountId: string, appId: string): Promise<AppRecord | undefined>;
  /** A version's file list; versions never change, so it may be cached. */
  manifest(accountId: string, appId: string, versionId: string): Promise<VersionManifest | undefined>;
  /** The bytes of a version's file (`path` as in the manifest). */
  file(accountId: string, appId: string, versionId: string, path: string): Promise<Buffer | undefined>;
  /** The account's public facts, or undefined for an unknown account. */
  account(accountId: string): Promise<AccountFacts | undefined>;
}

/** One request under an app address, with the account already taken from the host or the path form. */
export interface AppRequest {
  method: string;
  accountId: string;
  /**
   * The path below the account, as received (still percent-encoded), without the query:
   * `/<alias>/<path>`; in the path form the `/apps/<account_id>` prefix is already removed.
   */
  path: string;
  /** The raw query string without `?` ('' when none). */
  query: string;
  /** Request headers, lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** When the request arrived (the platform clock), for `date_utc`. */
  nowMs: number;
}

/** The answer: status, headers and the body (empty for HEAD, 304 and redirects). */
export interface AppResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}
