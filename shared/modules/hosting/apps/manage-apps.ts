/**
 * Creating, changing, listing and deleting apps (hosting.md §2). Every write that moves a
 * pointer writes it in the same transaction: creating an app claims its primary alias (409
 * when taken in the account), renaming the alias swaps the pointer at once (the old address
 * answers 404 from then on), changing `test` rewrites the primary pointer, and deleting the app
 * removes every pointer of its aliases, so every address stops at once; its stored files go
 * afterwards, as due work (./remove-app-files).
 */
import type { Mode } from '../../../core/access/tokens';
import { claimWritten, dueEntry } from '../../../work/due-work-store';
import { runClaimed } from '../../../work/runner';
import { newId } from '../../../core/ids';
import type { Platform } from '../../../platform/ports';
import { retryOnConflict } from '../../../store/records';
import { transact, type TransactEntry } from '../../../store/transact';
import type { AliasRecord, AppRecord } from './app-records';
import type { AppInput } from './app-schemas';
import {
  deleteAppEntries,
  deletePointerEntry,
  findAliasRecord,
  getApp,
  newAppEntries,
  newPointerEntry,
  readAppPage,
  replacePointerEntry,
  reserveAppPosition,
  saveAppEntries,
} from './apps-store';
import { copyEdgePointers, edgePointerEntries } from './edge-pointer-work';
import { AppValueTooLargeError } from './errors';
import { MAX_CUSTOM_CODE_BYTES, MAX_SETTINGS_BYTES } from './limits';
import { APP_FILES_BUDGET_PER_REQUEST, appFilesWork, APP_FILES_LEASE_MS, dueScope } from './remove-app-files';

/** Refuses (422 account_limit_exceeded) settings, style or custom code over their size. */
function checkSizes(body: AppInput): void {
  for (const property of ['settings', 'style'] as const) {
    const value = body[property];
    if (value !== undefined && Buffer.byteLength(JSON.stringify(value)) > MAX_SETTINGS_BYTES) throw new AppValueTooLargeError(property, MAX_SETTINGS_BYTES);
  }
  for (const property of ['custom_css', 'custom_javascript'] as const) {
    const value = body[property];
    if (typeof value === 'string' && Buffer.byteLength(value) > MAX_CUSTOM_CODE_BYTES) throw new AppValueTooLargeError(property, MAX_CUSTOM_CODE_BYTES);
  }
}

/** The pointer of an app's primary alias, as the app stands. */
export function primaryPointer(app: AppRecord, createdMs: number, modifiedMs: number): AliasRecord {
  return {
    account_id: app.account_id,
    alias: app.alias,
    app_id: app.app_id,
    version_id: app.live_version_id,
    test: app.test,
    primary: true,
    pinned_version_id: null,
    created_ms: createdMs,
    modified_ms: modifiedMs,
  };
}

/** Creates an app serving nothing yet; `test` defaults to the creating token's mode. 409 in_use when the alias is taken in the account. */
export async function createApp(platform: Platform, accountId: string, mode: Mode, body: AppInput & { name: string; alias: string }): Promise<AppRecord> {
  checkSizes(body);
  const seq = await reserveAppPosition(accountId);
  const now = platform.clock.nowMs();
  const app: AppRecord = {
    app_id: newId(),
    account_id: accountId,
    name: body.name,
    alias: body.alias,
    test: body.test ?? mode === 'test',
    live_version_id: null,
    live_version_number: null,
    previous_version_id: null,
    settings: body.settings ?? {},
    style: body.style ?? {},
    custom_css: body.custom_css ?? null,
    custom_javascript: body.custom_javascript ?? null,
    alias_pins: { [body.alias]: null },
    versions_uploaded: 0,
    deployments_made: 0,
    revision: 1,
    seq,
    created_ms: now,
    modified_ms: now,
    deployed_ms: null,
  };
  // The new pointer serves nothing: its copy removes a key an earlier app of the alias may have left.
  const copies = edgePointerEntries(platform, accountId, [app.alias]);
  await transact([...newAppEntries(app, primaryPointer(app, now, now)), ...copies]);
  await copyEdgePointers(platform, copies);
  return app;
}

/**
 * Applies a partial update (hosting.md §2.2): sent properties change, `settings` and `style`
 * are replaced whole, null resets them to `{}` (custom code to null). A new alias takes over
 * the primary pointer at once (409 in_use when taken, this app's own extra aliases included).
 */
export async function updateApp(platform: Platform, accountId: string, appId: string, body: AppInput): Promise<AppRecord> {
  checkSizes(body);
  const { app, copies } = await retryOnConflict(async () => {
    const current = await getApp(accountId, appId);
    const now = Math.max(platform.clock.nowMs(), current.modified_ms);
    const next: AppRecord = { ...current, modified_ms: now };
    if (body.name !== undefined) next.name = body.name;
    if (body.test !== undefined) next.test = body.test;
    if (body.settings !== undefined) next.settings = body.settings;
    if (body.style !== undefined) next.style = body.style;
    if (body.custom_css !== undefined) next.custom_css = body.custom_css;
    if (body.custom_javascript !== undefined) next.custom_javascript = body.custom_javascript;
    const entries: TransactEntry[] = [];
    const moved: string[] = [];
    if (body.alias !== undefined && body.alias !== current.alias) {
      const pins = { ...current.alias_pins };
      delete pins[current.alias];
      pins[body.alias] = null;
      next.alias = body.alias;
      next.alias_pins = pins;
      entries.push(deletePointerEntry(accountId, current.alias, appId), newPointerEntry(primaryPointer(next, now, now)));
      moved.push(current.alias, body.alias);
    } else if (next.test !== current.test) {
      const pointer = await findAliasRecord(accountId, current.alias);
      entries.push(replacePointerEntry(primaryPointer(next, pointer?.created_ms ?? current.created_ms, now)));
      moved.push(current.alias);
    }
    const copies = edgePointerEntries(platform, accountId, moved);
    await transact([...saveAppEntries(current, next), ...entries, ...copies]);
    return { app: { ...next, revision: current.revision + 1 }, copies };
  });
  await copyEdgePointers(platform, copies);
  return app;
}

/**
 * Deletes an app: in one transaction the record, its custom code and every alias pointer go
 * (every address answers 404 from then on) and `app-files` work is written, claimed by this
 * request, which then removes stored files up to a budget; the sweep finishes the rest.
 */
export async function deleteApp(platform: Platform, accountId: string, appId: string): Promise<void> {
  const { claim, copies } = await retryOnConflict(async () => {
    const app = await getApp(accountId, appId);
    const now = platform.clock.nowMs();
    const work = dueEntry('app-files', dueScope(accountId), appId, now + APP_FILES_LEASE_MS, now, newId());
    const copies = edgePointerEntries(platform, accountId, Object.keys(app.alias_pins));
    await transact([...deleteAppEntries(app), work, ...copies]);
    return { claim: claimWritten(work), copies };
  });
  // Every address stops at the CDN first; the files go afterwards.
  await copyEdgePointers(platform, copies);
  await runClaimed(platform, appFilesWork, claim, { budget: APP_FILES_BUDGET_PER_REQUEST });
}

/** What the app list can be asked for. */
export interface AppListQuery {
  offset: number;
  limit: number;
  sortBy: 'date_created' | 'name' | 'date_deployed';
  descending: boolean;
  /** Part of the name or alias (case-insensitive). */
  search?: string;
}

/** One page of an account's apps and their total. */
export async function listApps(accountId: string, query: AppListQuery): Promise<{ items: AppRecord[]; total: number }> {
  const search = query.search;
  return readAppPage(accountId, {
    offset: query.offset,
    limit: query.limit,
    descending: query.descending,
    ...(search !== undefined ? { filter: (app) => app.name.toLowerCase().includes(search) || app.alias.includes(search) } : {}),
    ...(query.sortBy === 'name' ? { sortKey: (app) => app.name.toLowerCase() } : {}),
    // Never-deployed apps sort first (ascending), as a missing date would.
    ...(query.sortBy === 'date_deployed' ? { sortKey: (app) => app.deployed_ms ?? -1 } : {}),
  });
}
