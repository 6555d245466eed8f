/** Lambda entry point of the `settings` route family: `/settings/{group}` (commerce.md section 13). */
import { getSettings, updateSettings } from '../../shared/accounts/settings-actions';
import { apiHandler } from '../../shared/http/pipeline';

export const handler = apiHandler('settings', {
  'GET /api/v1/settings/{group}': getSettings,
  'POST /api/v1/settings/{group}': updateSettings,
});
