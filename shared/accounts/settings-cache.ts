/**
 * A per-process cache of account technical settings (zone, locale, CORS list), read on
 * most requests. Entries are trusted for one second; a change made in this process is
 * seen at once (the settings actions call `forgetSettings`).
 */
import { readTechnicalSettings, type TechnicalSettings } from './settings';

const FRESH_MS = 1000;
const cache = new Map<string, { value: TechnicalSettings | undefined; at: number }>();

/** The technical settings of an account, at most one second old. */
export async function readTechnicalSettingsCached(accountId: string): Promise<TechnicalSettings | undefined> {
  const hit = cache.get(accountId);
  if (hit && performance.now() - hit.at <= FRESH_MS) return hit.value;
  const value = await readTechnicalSettings(accountId);
  cache.set(accountId, { value, at: performance.now() });
  if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
  return value;
}

/** Forgets an account's cached settings (after a change). */
export function forgetSettings(accountId: string): void {
  cache.delete(accountId);
}
