/** Lambda entry point of the `settings` route family: `/settings/{group}` (commerce.md section 13). */
import { getSettings, updateSettings } from '../../shared/modules/accounts/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('settings', {
  'GET /api/v1/settings/{group}': getSettings,
  'POST /api/v1/settings/{group}': updateSettings,
});

export const handler = lambdaHandler(family);
