/**
 * What rendering a response needs besides the data: where links point, the zone and locale
 * in effect, whether `formatted` twins are wanted, and who is asking (expansion only follows
 * links the caller may read). Built once per request.
 */
import type { Principal } from '../core/access/principal';
import type { Site } from '../core/config';
import { booleanParameter } from '../http/request';
import type { ApiContext } from '../http/types';
import { formatTimestamp, zoneInEffect } from './dates';
import { resolveLocale } from './formatted';
import type { PathTree } from './paths';
import { parseShowHide } from './show-hide';

/** The currency facts of an account that prices are shown and converted with (`/settings/payment`). */
export interface CurrencySettings {
  /** ISO 4217, uppercase; always one of `currencies`. */
  default_payment_currency: string;
  currencies: string[];
  settlement_currency: string;
  /** Units per one unit of the default currency; one entry per non-default currency. */
  exchange_rates: Record<string, number>;
}

/**
 * The account's payment settings as rendering carries them: the currency facts this engine
 * reads, widened by the accounts module to its whole `/settings/payment` shape through module
 * augmentation (as Hono's `ContextVariableMap` is), so actions get every setting they read
 * while this engine imports nothing of accounts.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RenderedPaymentSettings extends CurrencySettings {}

/** What rendering reads of an account's settings: its zone and locale defaults and its payment settings. */
export interface AccountRendering {
  timezone: string | undefined;
  locale: string | undefined;
  payment: RenderedPaymentSettings;
}

/** Rendering settings of one request. */
export interface RenderContext {
  baseUrl: string;
  /** The platform's public addresses (links that do not point at the API root: images, apps). */
  site: Site;
  zone: string;
  locale: string;
  formatted: boolean;
  now: number;
  accountId: string;
  mode: 'live' | 'test';
  principal: Principal | undefined;
  query: Record<string, string>;
  /** The account's payment settings (currencies and rates among them). */
  payment: RenderedPaymentSettings;
  /** The currency prices are shown in: a valid `currency` parameter, else the default. */
  currency: string;
  /**
   * Records this request already read (by `pk`) that expansion may use instead of reading them
   * again: a payment read together with the order it predicts (payment-actions.ts).
   */
  preread: Map<string, Record<string, unknown>>;
  /** Parsed `show`/`hide` (validated up front, so a conflict fails before any write). */
  showHide: { show?: PathTree; hide?: PathTree };
  /** Absolute URL of a resource or path below the API root. */
  url(path: string): string;
  /** A stored epoch-ms instant in the zone in effect, or null. */
  date(epochMs: number | null | undefined): string | null;
}

/** Builds the render context of a request (reads the account's zone and locale defaults). */
export async function renderContext(context: ApiContext, accountId: string, mode: 'live' | 'test'): Promise<RenderContext> {
  const settings = await context.accountRendering(accountId);
  const payment = settings.payment;
  const asked = context.query.currency?.toUpperCase();
  const zone = zoneInEffect(context.query, settings.timezone ?? 'UTC');
  const wantsFormatted = booleanParameter(context.query, 'formatted') ?? false;
  const locale = wantsFormatted
    ? resolveLocale({
        ...(context.query.user_locale ? { userLocale: context.query.user_locale } : {}),
        ...(context.headers['accept-language'] ? { acceptLanguage: context.headers['accept-language'] } : {}),
        accountDefault: settings.locale ?? 'en-US',
      })
    : (settings.locale ?? 'en-US');
  const baseUrl = context.baseUrl;
  const showHide = parseShowHide(context.query);
  return {
    payment,
    currency: asked && payment.currencies.includes(asked) ? asked : payment.default_payment_currency,
    showHide,
    preread: new Map(),
    baseUrl,
    site: context.platform.site,
    zone,
    locale,
    formatted: wantsFormatted,
    now: context.platform.clock.nowMs(),
    accountId,
    mode,
    principal: context.principal,
    query: context.query,
    url: (path) => `${baseUrl}${path}`,
    date: (epochMs) => (epochMs === null || epochMs === undefined ? null : formatTimestamp(epochMs, zone)),
  };
}
