/**
 * The `/settings/{group}` endpoints (commerce.md section 13), as actions of the API pipeline,
 * and the domain calls behind them.
 *
 * Reading and writing:
 * - `GET` answers `{object:"settings", type, url, …fields}` with defaults for groups that were
 *   never saved. `POST` is a partial update (conventions.md section 15): the sent properties
 *   are validated on the merged result, then written all at once or not at all.
 * - Each group is one item with a `version`. A write is a put conditioned on the version it
 *   read; when another writer got there first, the change is re-applied to the fresh values
 *   and written again (a concurrent change to another property is never lost). After a few
 *   lost races the request fails with 422 request_failure.
 * - `/settings/general` shows and writes the CORS and redirect lists of the technical item;
 *   a change to both items is one transaction.
 * - The signature key is shown only to trusted tokens, owners and tokens allowed
 *   `settings:update`; for other callers the property is left out (not null), so a client
 *   can tell "hidden" from "unset". `rotate_signature_key: true` seals a new key.
 */
import { type Principal } from '../../core/access/principal';
import { isAllowed } from '../../core/access/permissions';
import type { Site } from '../../core/config';
import { ApiError, NotFoundError } from '../../http/errors';
import { declareAnswer, requirePrincipal, withBodyFor, type ApiContext, type ApiResult } from '../../http/types';
import { randomBase62 } from '../../core/ids';
import type { Platform, SecretsPort } from '../../platform/ports';
import { saveSettingsItems } from './account-store';
import {
  defaultGeneralSettings,
  defaultPaymentSettings,
  defaultTaxSettings,
  defaultTechnicalSettings,
  isSettingsGroup,
  readSettingsItem,
  withDefaults,
  type GeneralValues,
  type PaymentValues,
  type SettingsGroup,
  type TaxValues,
  type TechnicalValues,
  signatureKeyPurpose,
} from './settings';
import { forgetSettings } from './settings-cache';
import { settingsUpdates, type SettingsInputs } from './settings-schemas';
import { applyGeneralChanges, applyPaymentChanges, applyTaxChanges, applyTechnicalChanges } from './settings-validation';
import { applyStripeChanges, stripeConnectionJson } from './stripe-settings';

/** Attempts of a read-validate-write cycle before a write race is reported. */
const WRITE_ATTEMPTS = 3;

/** Length of a generated signature key (base62). */
export const SIGNATURE_KEY_LENGTH = 32;

/** 422 request_failure: the settings kept changing under this request. */
export class SettingsWriteConflictError extends ApiError {
  override name = 'SettingsWriteConflictError';
  constructor() {
    super(422, 'request_failure', 'The settings were changed by several requests at once. Retry the request.', { reason: 'conflict' });
  }
}

/** Whether a caller may see `signature_key`: trusted tokens, owners, and tokens allowed `settings:update`. */
export function maySeeSignatureKey(principal: Pick<Principal, 'kind' | 'isOwner' | 'permissions'>): boolean {
  if (principal.kind === 'limited') return false;
  return principal.kind === 'trusted' || principal.isOwner || isAllowed(principal.permissions, 'settings', 'update');
}

/** The hosts of an account's hosted apps (`<account_id>.<apps domain>`). */
export function appHosts(accountId: string, site: Pick<Site, 'appsDomain'>): string[] {
  return [`${accountId}.${site.appsDomain}`];
}

/** A stored settings item as read (undefined when the group was never saved). */
type StoredItem = Record<string, unknown> | undefined;

/** The stored items a group's view is made of. */
interface GroupItems {
  /** The group's own item. */
  own: StoredItem;
  /** The technical item, for `general` (which shows its CORS and redirect lists). */
  technical?: StoredItem;
}

/** What a group answers with, before the common `object`/`type`/`url`. */
export interface SettingsState {
  group: SettingsGroup;
  accountId: string;
  /** The group's values (for `general`, with the shared technical lists). */
  values: Record<string, unknown>;
  /** The sealed signature key (technical only). */
  signatureKeySealed?: string;
  /** The plain signature key, when this request generated it. */
  newSignatureKey?: string;
}

/** The technical item's fields, or 404 when the account has none (an unknown account). */
function technicalValues(item: StoredItem): TechnicalValues {
  if (!item) throw new NotFoundError('The account has no settings.');
  return pickValues(defaultTechnicalSettings(), item);
}

/** The known fields of a group (defaults where the item lacks them), without `version`. */
function pickValues<T extends object>(defaults: T, item: StoredItem): T {
  const { version: _version, ...values } = withDefaults(defaults, item);
  return values as T;
}

function versionOf(item: StoredItem): number | undefined {
  return typeof item?.version === 'number' ? item.version : undefined;
}

async function loadItems(accountId: string, group: SettingsGroup): Promise<GroupItems> {
  const read = (name: SettingsGroup) => readSettingsItem(accountId, name, { consistent: true });
  if (group === 'general') {
    const [own, technical] = await Promise.all([read('general'), read('technical')]);
    return { own, technical };
  }
  return { own: await read(group) };
}

/** The current state of a group, defaults applied. */
function stateOf(accountId: string, group: SettingsGroup, items: GroupItems): SettingsState {
  switch (group) {
    case 'technical':
      return {
        group,
        accountId,
        values: { ...technicalValues(items.own) },
        signatureKeySealed: String(items.own?.signature_key_sealed ?? ''),
      };
    case 'general': {
      const technical = technicalValues(items.technical);
      const values: GeneralValues = pickValues(defaultGeneralSettings(), items.own);
      return {
        group,
        accountId,
        values: { ...values, cors_allowed_origins: technical.cors_allowed_origins, oauth_redirect_uris: technical.oauth_redirect_uris },
      };
    }
    case 'payment':
      return { group, accountId, values: { ...pickValues(defaultPaymentSettings(), items.own) } };
    case 'tax':
      return { group, accountId, values: { ...pickValues(defaultTaxSettings(), items.own) } };
  }
}

/** Reads a group's settings, defaults applied. */
export async function readSettingsState(accountId: string, group: SettingsGroup): Promise<SettingsState> {
  return stateOf(accountId, group, await loadItems(accountId, group));
}

/** The ports a settings change uses: sealing secrets, and checking a Stripe key when one is saved. */
export type SettingsPorts = Pick<Platform, 'secrets' | 'stripe'>;

/** For callers that save no Stripe connection (operator commands, tests of other groups): a key check fails loudly. */
const NO_STRIPE: Platform['stripe'] = {
  connect: () => { throw new Error('No Stripe connections here'); },
  verifyEvent: () => { throw new Error('No Stripe connections here'); },
};

/** One conditional put of a settings item (of `group` of the account `accountId`). */
interface ItemWrite {
  accountId: string;
  group: SettingsGroup;
  item: Record<string, unknown>;
  /** The item as it was read (undefined: it must still not exist). */
  before: StoredItem;
}

function sameValues(a: object, b: object): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The put of a changed group item, conditioned on the version that was read. */
function itemWrite(accountId: string, group: SettingsGroup, before: StoredItem, values: object, extra: object = {}): ItemWrite {
  return {
    accountId,
    group,
    before,
    item: { ...before, ...values, ...extra, version: (versionOf(before) ?? 0) + 1 },
  };
}

/** Writes the items, all or none. Answers false when another writer changed one first. */
async function writeItems(writes: ItemWrite[]): Promise<boolean> {
  return saveSettingsItems(writes);
}

/** A parsed update of one group (`settingsUpdates[group]`), the group telling the body's type. */
type SettingsChange = { [G in SettingsGroup]: { group: G; body: SettingsInputs[G] } }[SettingsGroup];

/** The writes (possibly none) and resulting state of one change, computed from items read. */
async function planChange(accountId: string, change: SettingsChange, items: GroupItems, ports: SettingsPorts): Promise<{ writes: ItemWrite[]; state: SettingsState }> {
  const { secrets } = ports;
  const current = stateOf(accountId, change.group, items);
  switch (change.group) {
    case 'technical': {
      const before = current.values as unknown as TechnicalValues;
      const { values, rotateSignatureKey } = applyTechnicalChanges(before, change.body);
      const state: SettingsState = { ...current, values: { ...values } };
      const extra: Record<string, unknown> = {};
      if (rotateSignatureKey) {
        state.newSignatureKey = randomBase62(SIGNATURE_KEY_LENGTH);
        state.signatureKeySealed = await secrets.seal(state.newSignatureKey, signatureKeyPurpose(accountId));
        extra.signature_key_sealed = state.signatureKeySealed;
      }
      const changed = rotateSignatureKey || !sameValues(before, values);
      return { writes: changed ? [itemWrite(accountId, 'technical', items.own, values, extra)] : [], state };
    }
    case 'general': {
      const before = current.values as ReturnType<typeof applyGeneralChanges>;
      const after = applyGeneralChanges(before, change.body);
      const { cors_allowed_origins, oauth_redirect_uris, ...general } = after;
      const { cors_allowed_origins: corsBefore, oauth_redirect_uris: urisBefore, ...generalBefore } = before;
      const writes: ItemWrite[] = [];
      if (!sameValues(generalBefore, general)) writes.push(itemWrite(accountId, 'general', items.own, general));
      if (!sameValues([corsBefore, urisBefore], [cors_allowed_origins, oauth_redirect_uris])) {
        writes.push(itemWrite(accountId, 'technical', items.technical, { cors_allowed_origins, oauth_redirect_uris }));
      }
      return { writes, state: { ...current, values: { ...after } } };
    }
    case 'payment': {
      const before = current.values as unknown as PaymentValues;
      const values = await applyStripeChanges(accountId, before, applyPaymentChanges(before, change.body), change.body, ports);
      const writes = sameValues(before, values) ? [] : [itemWrite(accountId, 'payment', items.own, values)];
      return { writes, state: { ...current, values: { ...values } } };
    }
    case 'tax': {
      const before = current.values as unknown as TaxValues;
      const values = applyTaxChanges(before, change.body);
      const writes = sameValues(before, values) ? [] : [itemWrite(accountId, 'tax', items.own, values)];
      return { writes, state: { ...current, values: { ...values } } };
    }
  }
}

/**
 * Applies a parsed partial update to a group: checks the rules that join fields on the merged
 * result (400 invalid_input with the property, nothing saved), writes every changed item at
 * once, and makes this process see the change at once. Answers the group as it is after the change.
 */
export async function changeSettings<G extends SettingsGroup>(accountId: string, group: G, body: SettingsInputs[G], ports: SettingsPorts | SecretsPort): Promise<SettingsState> {
  const settingsPorts: SettingsPorts = 'seal' in ports ? { secrets: ports, stripe: NO_STRIPE } : ports;
  const change = { group, body } as SettingsChange;
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const items = await loadItems(accountId, change.group);
    const { writes, state } = await planChange(accountId, change, items, settingsPorts);
    if (writes.length === 0) return state;
    if (await writeItems(writes)) {
      forgetSettings(accountId);
      return state;
    }
  }
  throw new SettingsWriteConflictError();
}

/** The API representation of a group. `showSignatureKey` decides whether `signature_key` is present. */
export async function settingsResource(state: SettingsState, baseUrl: string, showSignatureKey: boolean, ports: Pick<Platform, 'secrets' | 'site'>): Promise<Record<string, unknown>> {
  const head = { object: 'settings', type: state.group, url: `${baseUrl}settings/${state.group}` };
  // The values read for the group (readSettingsState), typed per group: the API description reads these types.
  switch (state.group) {
    case 'technical': {
      const v = state.values as TechnicalValues;
      const signatureKey = showSignatureKey
        ? { signature_key: state.newSignatureKey ?? (await openSignatureKey(state, ports.secrets)) }
        : {};
      return {
        ...head,
        timezone: v.timezone,
        locale: v.locale,
        cors_allowed_origins: v.cors_allowed_origins,
        oauth_redirect_uris: v.oauth_redirect_uris,
        app_hosts: appHosts(state.accountId, ports.site),
        allow_public_limited_test_tokens: v.allow_public_limited_test_tokens,
        ...signatureKey,
        invoice_payment_url: v.invoice_payment_url,
      };
    }
    case 'general': {
      const v = state.values as GeneralValues & Pick<TechnicalValues, 'cors_allowed_origins' | 'oauth_redirect_uris'>;
      return {
        ...head,
        company_name: v.company_name,
        support_email: v.support_email,
        support_website: v.support_website,
        notification_from_addresses: v.notification_from_addresses,
        reporting_currency_primary: v.reporting_currency_primary,
        reporting_currency_secondary: v.reporting_currency_secondary,
        cors_allowed_origins: v.cors_allowed_origins,
        oauth_redirect_uris: v.oauth_redirect_uris,
        app_hosts: appHosts(state.accountId, ports.site),
      };
    }
    case 'payment': {
      const v = state.values as PaymentValues;
      // The Stripe secrets are write-only: sealed at rest, read back as hints (commerce.md §4.7).
      return { ...head, ...v, stripe_live: stripeConnectionJson(v.stripe_live as never), stripe_test: stripeConnectionJson(v.stripe_test as never) };
    }
    case 'tax':
      return { ...head, ...(state.values as TaxValues) };
  }
}

async function openSignatureKey(state: SettingsState, secrets: SecretsPort): Promise<string | null> {
  if (!state.signatureKeySealed) return null;
  return secrets.open(state.signatureKeySealed, signatureKeyPurpose(state.accountId));
}

/** The `{group}` path parameter, or 404 for a group that does not exist. */
function groupOf(context: ApiContext): SettingsGroup {
  const group = context.params.group ?? '';
  if (!isSettingsGroup(group)) throw new NotFoundError(`There are no settings named ${group}.`);
  return group;
}

/** `GET /settings/{group}`. */
export async function getSettings(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const state = await readSettingsState(principal.accountId, groupOf(context));
  return { status: 200, body: await settingsResource(state, context.baseUrl, maySeeSignatureKey(principal), context.platform) };
}

/**
 * `POST /settings/{group}`: a partial update. The group in the path picks the body's schema,
 * which the pipeline runs before any read; an unknown group is 404 whatever the body.
 */
export const updateSettings = withBodyFor('group', settingsUpdates, async (context) => {
  const principal = requirePrincipal(context);
  const group = groupOf(context);
  const state = await changeSettings(principal.accountId, group, context.body as SettingsInputs[typeof group], context.platform);
  const showKey = maySeeSignatureKey(principal);
  // An idempotent replay copy must not keep the signature key in clear.
  return { status: 200, body: await settingsResource(state, context.baseUrl, showKey, context.platform), sensitive: showKey && state.group === 'technical' };
});

// Both routes answer the group's settings object; which properties it has depends on the group.
declareAnswer(getSettings, { shape: 'settings', summary: 'Retrieve a settings group', description: 'The settings of the group in the path: `technical`, `general`, `payment` or `tax`; `type` says which, and the properties are that group\'s.' });
declareAnswer(updateSettings, { shape: 'settings', summary: 'Update a settings group', description: 'Answers the whole group after the update.' });
