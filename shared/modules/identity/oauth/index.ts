/** OAuth apps and grants (auth.md 6) inside the identity module: what its door, the sign-in surface and the route family use. */
export { InvalidOAuthRequestError, OAuthTokenError } from './errors';
export { ACCESS_TOKEN_SECONDS, issueAuthorizationCode, issueConsentTicket, issueImplicitToken, revokeGrant, revokeUserGrants, takeConsentTicket, type ConsentRequest } from './grants';
export { findOAuthApp, findOAuthAppByClientId } from './oauth-app-store';
export { isAllowedRedirectUri } from './oauth-app-schemas';
export { type OAuthAppRecord } from './oauth-records';
