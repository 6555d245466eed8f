/** The `/users` endpoints (auth.md section 9.2), as actions of the API pipeline. */
import { InsufficientPermissionsError } from '../../http/auth-errors';
import { InvalidInputError, InvalidStateError, NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareQuery, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import { offsetList, offsetPage, pageUrlBuilder } from '../../rest/offset-list';
import { renderElements, renderResource } from '../../rest/render';
import { renderContext, type RenderContext } from '../../rest/render-context';
import { retryOnConflict } from '../../store/entity';
import { deniedGrants, FULL_ACCESS } from '../../core/access/permissions';
import { checkEscalation } from './grants';
import type { Principal } from '../../core/access/principal';
import { checkPasswordRules, hashPassword, verifyPassword } from './passwords';
import { INVALID_LOGIN_MESSAGE } from './lockout';
import { userCreate, userSelfUpdate, userUpdate, type UserInput } from './user-schemas';
import { findUser, insertUser, listUsers, removeUser, saveUser } from './user-store';
import { revokeUserTokens } from './user-sign-in';
import { userDeclaration, type UserRecord } from './users';

const SORT_FIELDS = new Set(['name', 'user_id', 'date_created', 'date_last_login']);
/** An account's users are read whole for lists (an account has few); beyond this many the list refuses. */
const MAX_USERS = 5000;

/** Whether the caller counts as an owner: an owner's trusted token, or a token that holds every right. */
function actsAsOwner(principal: Principal): boolean {
  return principal.isOwner || deniedGrants(FULL_ACCESS, principal.permissions).length === 0;
}

/**
 * Nobody grants what they lack (auth.md 9.2, the rule of /auths/secret): the rights the new
 * state gives must be held by the caller, and only an owner makes an owner.
 */
function checkGrant(principal: Principal, input: Pick<UserInput, 'permissions' | 'is_account_owner'>): void {
  if (input.is_account_owner === true && !actsAsOwner(principal)) {
    throw new InsufficientPermissionsError('Only an account owner can make an account owner.', { denied: ['is_account_owner'] });
  }
  if (input.permissions) checkEscalation(principal, input.permissions);
}

/** The render context of a /users answer (users are account-wide; links follow the caller's mode). */
function userRender(context: ApiContext, principal: Principal): Promise<RenderContext> {
  return renderContext(context, principal.accountId, principal.mode);
}

/** A user of the caller's account; 404 for unknown ids and for other accounts' users alike. */
async function accountUser(principal: Principal, userId: string): Promise<UserRecord> {
  const user = await findUser(userId);
  if (!user || user.account_id !== principal.accountId) throw new NotFoundError('The user does not exist.', { parameter: 'user_id' });
  return user;
}

/** The owners of an account. */
async function ownersOf(accountId: string): Promise<UserRecord[]> {
  return (await listUsers(accountId, MAX_USERS)).filter((user) => user.is_account_owner);
}

/** The user after `input` is applied at `now` (password rules of §9.3 checked against the resulting id and email). */
async function applyInput(current: UserRecord, input: UserInput, now: number): Promise<UserRecord> {
  const next: UserRecord = {
    ...current,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.email !== undefined ? { email: input.email } : {}),
    ...(input.language !== undefined ? { language: input.language } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.is_account_owner !== undefined ? { is_account_owner: input.is_account_owner } : {}),
    ...(input.permissions !== undefined ? { permissions: input.permissions } : {}),
    modified_ms: now,
  };
  if (input.password !== undefined) next.password_hash = await hashPassword(checkPasswordRules(input.password, next.user_id, next.email));
  return next;
}

/** `GET /users`: an offset list of the account's users; `q` searches name, user id and email. */
export async function listUsersAction(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const render = await userRender(context, principal);
  const page = offsetPage(context.query);
  const sortBy = context.query.sort_by || 'date_created';
  if (!SORT_FIELDS.has(sortBy)) {
    throw new InvalidInputError('The parameter sort_by must be name, user_id, date_created or date_last_login.', { parameter: 'sort_by', reason: 'invalid' });
  }
  const descending = booleanParameter(context.query, 'desc') ?? false;
  const search = context.query.q?.trim().toLowerCase() || undefined;
  let users = await listUsers(principal.accountId, MAX_USERS);
  if (search) users = users.filter((user) => [user.name, user.user_id, user.email].some((value) => value.toLowerCase().includes(search)));
  const key = (user: UserRecord): string | number =>
    sortBy === 'name' ? user.name.toLowerCase() : sortBy === 'user_id' ? user.user_id.toLowerCase() : sortBy === 'date_last_login' ? (user.last_login_ms ?? 0) : user.created_ms;
  const direction = descending ? -1 : 1;
  users.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return direction * (x < y ? -1 : x > y ? 1 : a.user_id < b.user_id ? -1 : 1);
  });
  const data = await renderElements(userDeclaration, users.slice(page.offset, page.offset + page.limit), render);
  return { status: 200, body: offsetList(data, page, users.length, pageUrlBuilder(render.url('users'), context.query, 'offset')) };
}

/** `POST /users`: 201; a taken user id or email is 409 in_use. */
export const createUserAction = withBody(userCreate, async (context) => {
  const principal = requirePrincipal(context);
  const render = await userRender(context, principal);
  const input = context.body;
  checkGrant(principal, input);
  const now = context.platform.clock.nowMs();
  const user: UserRecord = {
    user_id: input.user_id,
    account_id: principal.accountId,
    name: input.name,
    email: input.email,
    password_hash: input.password === undefined ? null : await hashPassword(checkPasswordRules(input.password, input.user_id, input.email)),
    is_account_owner: input.is_account_owner ?? false,
    language: input.language ?? 'en',
    locale: input.locale ?? 'en-US',
    permissions: input.permissions ?? [],
    created_ms: now,
    modified_ms: now,
  };
  await insertUser(user);
  return { status: 201, body: await renderResource(userDeclaration, user, render), location: render.url(`users/${encodeURIComponent(user.user_id)}`) };
});

/** `GET /users/{user_id}`: 404 when the caller's account has no such user. */
export async function getUserAction(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const render = await userRender(context, principal);
  return { status: 200, body: await renderResource(userDeclaration, await accountUser(principal, context.params.user_id!), render) };
}

/**
 * Writes a change of a user over the version read (again after a lost race); a password change
 * revokes the user's other trusted tokens (`keep`: the caller's own token).
 */
async function changeUser(principal: Principal, userId: string, input: UserInput, now: () => number): Promise<UserRecord> {
  const saved = await retryOnConflict(async () => {
    const current = await accountUser(principal, userId);
    if (current.is_account_owner && input.is_account_owner === false && (await ownersOf(current.account_id)).length <= 1) {
      throw new InvalidStateError('The last account owner cannot stop being an owner.');
    }
    const next = await applyInput(current, input, now());
    await saveUser(current, next);
    return next;
  });
  if (input.password !== undefined) await revokeUserTokens(saved.account_id, saved.user_id, now(), principal.tokenHash);
  return saved;
}

/** `POST /users/{user_id}`: a partial update; nobody grants what they lack. */
export const updateUserAction = withBody(userUpdate, async (context) => {
  const principal = requirePrincipal(context);
  const render = await userRender(context, principal);
  checkGrant(principal, context.body);
  const saved = await changeUser(principal, context.params.user_id!, context.body, () => context.platform.clock.nowMs());
  return { status: 200, body: await renderResource(userDeclaration, saved, render) };
});

/** `DELETE /users/{user_id}`: 204; the user's trusted tokens are revoked at once. Yourself or the last owner: 422. */
export async function deleteUserAction(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  await retryOnConflict(async () => {
    const user = await accountUser(principal, context.params.user_id!);
    if (principal.userId && principal.userId.toLowerCase() === user.user_id.toLowerCase()) throw new InvalidStateError('You cannot delete yourself.');
    if (user.is_account_owner && (await ownersOf(user.account_id)).length <= 1) throw new InvalidStateError('The last account owner cannot be deleted.');
    await removeUser(user);
  });
  await revokeUserTokens(principal.accountId, context.params.user_id!, context.platform.clock.nowMs());
  return { status: 204 };
}

/** The signed-in user of a trusted token; every other token kind is 403 (auth.md 9.2). */
function signedInUserId(principal: Principal): string {
  if (principal.kind !== 'trusted' || !principal.userId) throw new InsufficientPermissionsError('Only a signed-in user (a trusted token) has a /users/me.');
  return principal.userId;
}

/** `GET /users/me`: the signed-in user. */
export async function getMeUserAction(context: ApiContext): Promise<ApiResult> {
  const principal = requirePrincipal(context);
  const user = await accountUser(principal, signedInUserId(principal));
  return { status: 200, body: await renderResource(userDeclaration, user, await userRender(context, principal)) };
}

/**
 * `POST /users/me`: changes name, email, language, locale and password; `current_password`,
 * when sent, must be right (else 400 invalid_input on it: the token itself stays valid). A password change keeps the calling token.
 */
export const updateMeUserAction = withBody(userSelfUpdate, async (context) => {
  const principal = requirePrincipal(context);
  const userId = signedInUserId(principal);
  const render = await userRender(context, principal);
  const { current_password: currentPassword, ...input } = context.body;
  if (currentPassword !== undefined) {
    const user = await accountUser(principal, userId);
    if (!user.password_hash || !(await verifyPassword(currentPassword, user.password_hash))) {
      throw new InvalidInputError(INVALID_LOGIN_MESSAGE, { property: 'current_password', reason: 'invalid' });
    }
  }
  const saved = await changeUser(principal, userId, input, () => context.platform.clock.nowMs());
  return { status: 200, body: await renderResource(userDeclaration, saved, render) };
});

declareQuery(listUsersAction, { list: 'offset', filters: { q: 'Search in name, user_id and email', sort_by: 'name, user_id, date_created (default) or date_last_login' } });
