/** The identity module's one door: what other modules, flows and the app may use of it. */
export { authenticate, expiresInSeconds, tokenRecordChanged } from './authenticate';
export { authDeclaration, tokenWrites, type RenderedAuth, type TransactItem } from './auths';
export { BindingLimitExceededError, assertBindingCapacity, bindingWrite, bindingWritten } from './bindings';
export { InsufficientPermissionsError, InvalidTokenError } from './errors';
export { lockoutKey, withLockout, type LoginCheck } from './lockout';
export { checkPasswordRules, hashPassword, verifyPassword } from './passwords';
export { type PermissionMethod, type PermissionResource } from './permission-names';
export { FULL_ACCESS, isAllowed } from './permissions';
export { type Principal } from './principal';
export { takeFromBucket } from './rate-limit';
export { assertReach, reachWrite, reaches } from './reach';
export { IDLE_LIFETIME_MS, type TokenRecord } from './token-records';
export { customerScopeEntry, newTokenEntries } from './token-store';
export { bearerToken, type Mode } from './tokens';
