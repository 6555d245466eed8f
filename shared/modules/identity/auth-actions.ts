/** The `/auths` endpoints (auth.md section 7), as actions of the API pipeline. */
import { InvalidInputError, NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareAnswer, declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { readTechnicalSettingsCached } from '../accounts';
import { parseDateInput, zoneInEffect } from '../../rest/dates';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { sends } from '../../rest/input';
import { renderContext, type RenderContext } from '../../rest/render-context';
import {
  authDeclaration,
  countAuths,
  getAuthRecord,
  issueToken,
  queryAuths,
  revokeAuth,
  updateSecretToken,
  type SecretTokenChanges,
} from './auths';
import { authUpdate, secretAuthCreate } from './auth-schemas';
import { issueTrustedTwin } from './user-sign-in';
import { checkEscalation } from './grants';
import { InsufficientPermissionsError, TokenTypeMismatchError } from '../../http/auth-errors';
import { grantablePermissions, isAllowed } from '../../core/access/permissions';
import type { Principal } from '../../core/access/principal';
import { IDLE_LIFETIME_MS, type TokenRecord } from '../../core/access/token-records';
import type { Mode, TokenKind } from '../../core/access/tokens';

const LIST_TYPES = new Set(['secret', 'limited', 'trusted', 'all']);
const SORT_FIELDS = new Set(['date_created', 'date_last_used', 'expires']);
/** Filtering or sorting on other fields reads the whole partition; beyond this many it refuses. */
const IN_MEMORY_LIST_LIMIT = 5000;

/** The mode named by the `test` parameter, or the caller's. */
function modeParameter(context: ApiContext, principal: Principal): Mode {
  const test = booleanParameter(context.query, 'test');
  return test === undefined ? principal.mode : test ? 'test' : 'live';
}

/** A parsed `expires` (a timestamp or date shorthand) resolved to its last moment in the zone in effect; it must lie ahead. */
async function resolveExpires(value: string | null | undefined, context: ApiContext, accountId: string): Promise<number | null> {
  if (value === null || value === undefined) return null;
  const zone = zoneInEffect(context.query, (await readTechnicalSettingsCached(accountId))?.timezone ?? 'UTC');
  const ms = parseDateInput(value, { edge: 'last', zone, now: context.platform.clock.nowMs(), name: 'expires', kind: 'property' });
  if (ms <= context.platform.clock.nowMs()) {
    throw new InvalidInputError('The property expires must lie in the future.', { property: 'expires', reason: 'out_of_range' });
  }
  return ms;
}

/** The render context of an /auths answer (validates show/hide, zone and locale up front). */
function authRender(context: ApiContext, principal: Principal): Promise<RenderContext> {
  return renderContext(context, principal.accountId, principal.mode);
}

/** `POST /auths/secret`: issues a secret token; the full token appears only in this answer. */
export const createSecretAuth = withBody(secretAuthCreate, async (context) => {
  const principal = requirePrincipal(context);
  const render = await authRender(context, principal);
  const mode = modeParameter(context, principal);
  if (principal.mode === 'test' && mode === 'live') {
    throw new TokenTypeMismatchError('A test token cannot create a live token.');
  }
  if (principal.kind !== 'secret' && principal.kind !== 'trusted') throw new InsufficientPermissionsError(undefined, { required_permission: 'auths:create' });
  const { comments, expires, permissions } = context.body;
  const expiresAtMs = await resolveExpires(expires, context, principal.accountId);
  checkEscalation(principal, permissions);
  const { record, token } = await issueToken({
    accountId: principal.accountId,
    mode,
    kind: 'secret',
    permissions,
    comments: comments ?? null,
    expiresAtMs,
  }, context.platform.clock);
  const resource = await renderResource(authDeclaration, { ...record, full_token: token }, render);
  return { status: 201, body: resource, location: render.url(`auths/${record.auth_id}`), sensitive: true };
});

/**
 * `POST /auths/limited` (auth.md 3.1): a shopper session token. Live tokens are public; a test
 * token needs a trusted or secret token of the account with `auths:create`, or the account's
 * `allow_public_limited_test_tokens`.
 */
export async function createLimitedAuth(context: ApiContext): Promise<ApiResult> {
  const principal = context.principal;
  const asked = context.query.account_id || undefined;
  if (principal && asked && asked !== principal.accountId) {
    throw new InsufficientPermissionsError('The account_id differs from the account of the access token.');
  }
  const accountId = asked ?? principal?.accountId;
  if (!accountId) {
    throw new InvalidInputError('The parameter account_id is required without an access token.', { parameter: 'account_id', reason: 'required' });
  }
  const test = booleanParameter(context.query, 'test') ?? false;
  const settings = await readTechnicalSettingsCached(accountId);
  if (!settings) throw new NotFoundError('The account does not exist.', { parameter: 'account_id' });
  if (test) {
    const mayMint = principal
      ? (principal.kind === 'secret' || principal.kind === 'trusted') && (principal.isOwner || isAllowed(principal.permissions, 'auths', 'create'))
      : settings.allow_public_limited_test_tokens;
    if (!mayMint) throw new InsufficientPermissionsError('Test limited tokens need a trusted or secret token of the account.');
  }
  const render = await renderContext(context, accountId, test ? 'test' : 'live');
  const { record, token } = await issueToken({ accountId, mode: test ? 'test' : 'live', kind: 'limited' }, context.platform.clock);
  const resource = await renderResource(authDeclaration, { ...record, full_token: token }, render);
  return {
    status: 201,
    body: resource,
    location: render.url(`auths/${record.auth_id}`),
    // The header describes the issued token, not the caller's (conventions.md section 5).
    headers: { 'X-Token-Expires-In-Seconds': String(IDLE_LIFETIME_MS.limited! / 1000) },
    sensitive: true,
  };
}

/**
 * `POST /auths/trusted` (auth.md 5.2): a trusted caller gets another trusted token for the same
 * user with the same rights: a test one with `test=true`, else a live one, which only a live
 * caller may have. Secret and limited callers: 403. The caller's token stays valid.
 */
export async function createTrustedAuth(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  if (principal.kind !== 'trusted' || !principal.userId) throw new InsufficientPermissionsError('Only a trusted token can have a trusted twin.');
  const mode: Mode = booleanParameter(context.query, 'test') ? 'test' : 'live';
  if (mode === 'live' && principal.mode === 'test') throw new TokenTypeMismatchError('A test token cannot create a live token.');
  const render = await renderContext(context, principal.accountId, mode);
  const { record, token } = await issueTrustedTwin(principal.record, mode, context.platform.clock);
  return {
    status: 201,
    body: await renderResource(authDeclaration, { ...record, full_token: token }, render),
    location: render.url(`auths/${record.auth_id}`),
    headers: { 'X-Token-Expires-In-Seconds': String(IDLE_LIFETIME_MS.trusted! / 1000) },
    sensitive: true,
  };
}

/** `GET /auths`: an offset list of the account's tokens of one mode. */
export async function listAuths(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const render = await authRender(context, principal);
  const mode = modeParameter(context, principal);
  const page = offsetPage(context.query);
  const type = context.query.type || 'secret';
  if (!LIST_TYPES.has(type)) {
    throw new InvalidInputError('The parameter type must be secret, limited, trusted or all.', { parameter: 'type', reason: 'invalid' });
  }
  const sortBy = context.query.sort_by || 'date_created';
  if (!SORT_FIELDS.has(sortBy)) {
    throw new InvalidInputError('The parameter sort_by must be date_created, date_last_used or expires.', {
      parameter: 'sort_by',
      reason: 'invalid',
    });
  }
  const descending = booleanParameter(context.query, 'desc') ?? false;
  const search = context.query.q?.trim().toLowerCase() || undefined;
  const kinds: TokenKind[] = type === 'all' ? ['secret', 'limited', 'trusted'] : [type as TokenKind];

  let records: TokenRecord[];
  let total: number;
  if (sortBy === 'date_created' && !search) {
    // Index order: read only as far as the page reaches; the total comes from the counters.
    const wanted = page.offset + page.limit;
    const parts = await Promise.all(kinds.map((kind) => queryAuths(principal.accountId, mode, kind, wanted, descending)));
    records = parts.flat();
    total = (await Promise.all(kinds.map((kind) => countAuths(principal.accountId, mode, kind)))).reduce((a, b) => a + b, 0);
  } else {
    const parts = await Promise.all(
      kinds.map((kind) => queryAuths(principal.accountId, mode, kind, IN_MEMORY_LIST_LIMIT + 1, descending)),
    );
    records = parts.flat();
    if (records.length > IN_MEMORY_LIST_LIMIT) {
      throw new InvalidInputError(
        `Searching or sorting by ${sortBy} is limited to ${IN_MEMORY_LIST_LIMIT} tokens; use type= to narrow the list.`,
        { parameter: search ? 'q' : 'sort_by', reason: 'out_of_range' },
      );
    }
    if (search) records = records.filter((record) => record.comments?.toLowerCase().includes(search));
    total = records.length;
  }
  records.sort(compareBy(sortBy, descending));
  const data = await renderElements(authDeclaration, records.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, total, pageUrlBuilder(render.url('auths'), context.query, 'offset')) };
}

function compareBy(sortBy: string, descending: boolean) {
  const value = (record: TokenRecord): number =>
    sortBy === 'date_last_used'
      ? (record.last_used_ms ?? 0)
      : sortBy === 'expires'
        ? (record.expires_at_ms ?? Number.MAX_SAFE_INTEGER)
        : record.created_ms;
  const direction = descending ? -1 : 1;
  return (a: TokenRecord, b: TokenRecord) =>
    direction * (value(a) - value(b) || (a.auth_id < b.auth_id ? -1 : a.auth_id > b.auth_id ? 1 : 0));
}

/** `GET /auths/{auth_id}`. */
export async function getAuth(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const render = await authRender(context, principal);
  const record = await getAuthRecord(principal.accountId, context.params.auth_id!);
  return { status: 200, body: await renderResource(authDeclaration, record, render) };
}

/** `POST /auths/{auth_id}`: changes comments, expires and permissions of a secret token. */
export const updateAuth = withBody(authUpdate, async (context) => {
  const principal = requirePrincipal(context);
  const render = await authRender(context, principal);
  const record = await getAuthRecord(principal.accountId, context.params.auth_id!);
  const body = context.body;
  const changes: SecretTokenChanges = {};
  if (sends(body, 'comments')) changes.comments = body.comments ?? null;
  if (sends(body, 'expires')) changes.expiresAtMs = await resolveExpires(body.expires, context, principal.accountId);
  if (body.permissions) {
    changes.permissions = body.permissions;
    checkEscalation(principal, changes.permissions);
  }
  if (Object.keys(changes).length === 0) return { status: 200, body: await renderResource(authDeclaration, record, render) };
  if (record.kind !== 'secret') {
    throw new InvalidInputError('Only secret tokens can be changed.', { property: Object.keys(body)[0], reason: 'not_allowed' });
  }
  const updated = await updateSecretToken(record, changes, context.platform.clock);
  return { status: 200, body: await renderResource(authDeclaration, updated, render) };
});

/** `DELETE /auths/{auth_id}`: revokes any token of the account at once. */
export async function deleteAuth(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  await revokeAuth(await getAuthRecord(principal.accountId, context.params.auth_id!));
  return { status: 204 };
}

/** `GET /auths/me`: the caller's own auth (authentication already read its record). */
export async function getOwnAuth(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  return { status: 200, body: await renderResource(authDeclaration, principal.record, await authRender(context, principal)) };
}

/** `DELETE /auths/me`: revokes the caller's token. */
export async function deleteOwnAuth(context: ApiContext): Promise<ApiResult> {
  await revokeAuth(requirePrincipal(context).record);
  return { status: 204 };
}

/** `GET /auths/options`: the grantable permissions (trusted tokens, or secret ones with auths:read). */
export async function authOptions(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const allowed =
    principal.kind === 'trusted' ||
    (principal.kind === 'secret' && (principal.isOwner || isAllowed(principal.permissions, 'auths', 'read')));
  if (!allowed) throw new InsufficientPermissionsError(undefined, { required_permission: 'auths:read' });
  const type = context.query.type || 'secret';
  if (!['secret', 'trusted', 'user'].includes(type)) {
    throw new InvalidInputError('The parameter type must be secret, trusted or user.', { parameter: 'type', reason: 'invalid' });
  }
  return { status: 200, body: { object: 'auth_options', type, permissions: grantablePermissions() } };
}

// The query parameters of the list actions, for the API description (conventions.md §12).
declareQuery(listAuths, { list: 'offset', filters: { type: 'secret (default) or another token kind', test: 'true lists test-mode tokens', q: 'Search in the comments', sort_by: 'date_created (default), date_last_used or expires' } });

// What the token-issuing actions answer, for the API description: the new token, in full this once.
const issued = 'Answers 201 with the new token; `token` holds it in full in this answer only, and `Location` its URL.';
declareAnswer(createSecretAuth, { resource: 'auth', summary: 'Create a secret token', description: issued });
declareAnswer(createLimitedAuth, { resource: 'auth', summary: 'Create a limited token (a shopper session)', description: issued });
declareAnswer(createTrustedAuth, { resource: 'auth', summary: 'Create a trusted token\'s twin', description: issued });
declareAnswer(authOptions, { shape: 'auth_options', summary: 'List the grantable permissions', description: 'The permissions a token of the asked `type` may be granted.' });
