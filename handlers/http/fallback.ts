/** Lambda entry point of the fallback family (API Gateway `$default`): 404, 405 and CORS preflight. */
import middy from '@middy/core';
import { routes } from '../../shared/app/routes';
import { fallback } from '../../shared/http/fallback';
import { config } from '../../shared/core/config';

export const handler = middy(fallback(routes, { edgeSecret: config().edgeSecret }));
