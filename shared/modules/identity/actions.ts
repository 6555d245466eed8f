/** The identity module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { authOptions, createLimitedAuth, createSecretAuth, deleteAuth, deleteOwnAuth, getAuth, getOwnAuth, listAuths, updateAuth } from './auth-actions';
