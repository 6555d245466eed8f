/** The identity module's one door: what other modules, flows and the app may use of it. */
export { authenticate, tokenRecordChanged } from './authenticate';
export { authDeclaration, tokenWrites, type RenderedAuth, type TransactItem } from './auths';
export { BindingLimitExceededError, assertBindingCapacity, bindingWrite, bindingWritten } from './bindings';
export { AccountLockedError, checkPassword, InvalidLoginError, lockoutKey, withLockout, type LoginCheck } from './lockout';
export { checkPasswordRules, hashPassword, needsRehash, verifyPassword } from './passwords';
export { takeFromBucket } from './rate-limit';
export { assertReach, reachWrite, tokenReachWrite } from './reach';
export { customerScopeEntry, newTokenEntries } from './token-store';
export { newUserEntries } from './user-store';
export { findUserByLogin, issueTrustedToken, signInUser } from './user-sign-in';
export { type UserRecord } from './users';
export { ACCESS_TOKEN_SECONDS, findOAuthApp, findOAuthAppByClientId, issueAuthorizationCode, issueConsentTicket, issueImplicitToken, takeConsentTicket, type ConsentRequest, type OAuthAppRecord } from './oauth';
