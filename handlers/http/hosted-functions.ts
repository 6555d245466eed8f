/** Lambda entry point of the `hosted-functions` route family: /hosted_functions (functions.md §6). */
import { deleteHostedFunctionAction, getHostedFunctionAction, listHostedFunctionsAction } from '../../shared/modules/functions/actions';
import { createHostedFunctionAction, updateHostedFunctionAction } from '../../shared/modules/functions/uploads';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('hosted-functions', {
  'GET /api/v1/hosted_functions': listHostedFunctionsAction,
  'POST /api/v1/hosted_functions': createHostedFunctionAction,
  'GET /api/v1/hosted_functions/{hosted_function_id}': getHostedFunctionAction,
  'POST /api/v1/hosted_functions/{hosted_function_id}': updateHostedFunctionAction,
  'DELETE /api/v1/hosted_functions/{hosted_function_id}': deleteHostedFunctionAction,
});

export const handler = lambdaHandler(family);
