/** What the apps capability can refuse, in the contract's codes (hosting.md §12). */
import { ApiError } from '../../../core/errors';
import { MAX_ALIASES_PER_APP } from './limits';

/** 409 in_use: the alias is taken in the account (by this app or another). */
export class AliasInUseError extends ApiError {
  override name = 'AliasInUseError';
  constructor(alias: string, property = 'alias') {
    super(409, 'in_use', `The alias ${alias} is already in use in this account.`, { property, reason: 'conflict' });
  }
}

/** 409 in_use: the version is live or an alias is pinned to it. */
export class VersionInUseError extends ApiError {
  override name = 'VersionInUseError';
  constructor(versionId: string, why: 'live' | 'pinned') {
    super(409, 'in_use', why === 'live' ? `The version ${versionId} is live; deploy another version first.` : `An alias is pinned to the version ${versionId}.`, {
      parameter: 'version_id',
      reason: why,
    });
  }
}

/** 422 account_limit_exceeded: the app has as many aliases as allowed. */
export class TooManyAliasesError extends ApiError {
  override name = 'TooManyAliasesError';
  constructor() {
    super(422, 'account_limit_exceeded', `An app has at most ${MAX_ALIASES_PER_APP} aliases, the primary included.`, { property: 'alias', reason: 'too_many', limit: MAX_ALIASES_PER_APP });
  }
}

/** 422 account_limit_exceeded: `settings`, `style` or custom code is larger than allowed. */
export class AppValueTooLargeError extends ApiError {
  override name = 'AppValueTooLargeError';
  constructor(property: string, limitBytes: number) {
    super(422, 'account_limit_exceeded', `The property ${property} is larger than ${limitBytes / 1024} KB.`, { property, reason: 'too_large', limit_bytes: limitBytes });
  }
}

/** 422 invalid_state: the request does not fit the app's or version's state (not ready, no rollback target, the primary alias). */
export class AppStateError extends ApiError {
  override name = 'AppStateError';
  constructor(message: string, meta: Record<string, unknown> | null = null) {
    super(422, 'invalid_state', message, meta);
  }
}
