/** Lambda entry point of the `users` route family: users and the signed-in user (auth.md section 9). */
import { createUserAction, deleteUserAction, getMeUserAction, getUserAction, listUsersAction, updateMeUserAction, updateUserAction } from '../../shared/modules/identity/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('users', {
  'GET /api/v1/users': listUsersAction,
  'POST /api/v1/users': createUserAction,
  'GET /api/v1/users/me': getMeUserAction,
  'POST /api/v1/users/me': updateMeUserAction,
  'GET /api/v1/users/{user_id}': getUserAction,
  'POST /api/v1/users/{user_id}': updateUserAction,
  'DELETE /api/v1/users/{user_id}': deleteUserAction,
});

export const handler = lambdaHandler(family);
