/**
 * What the API surface asks of the modules that know callers and accounts, as one object the
 * composition (shared/app/gate.ts) builds: the engine authenticates, throttles, checks origins
 * and hands actions the account's rendering defaults without importing identity or accounts.
 */
import type { Principal } from '../core/access/principal';
import type { AccountRendering } from '../rest/render-context';

export interface ApiGate {
  /** The caller a bearer token names; 401 invalid_token when it is missing, unknown, revoked or expired. */
  authenticate(token: string | undefined): Promise<Principal>;
  /** Draws a request without a token from its client address's bucket; 429 when the bucket is empty. */
  throttleAnonymous(sourceIp: string): Promise<void>;
  /** The browser origins an account allows besides its own hosts (conventions.md §16). */
  allowedOrigins(accountId: string): Promise<readonly string[]>;
  /** The apps domain: its hosts answer only their own account's tokens (hosting.md §9); empty when none. */
  appsDomain(): string;
  /** The secret our own edge (the CDN or the local gateway) proves itself with, so forwarded headers are trusted; none: no edge is. */
  edgeSecret: string | undefined;
  /** The account's zone and locale defaults and currencies, which rendering reads. */
  accountRendering(accountId: string): Promise<AccountRendering>;
}
