/** The accounts module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { getSettings, updateSettings } from './settings-actions';
