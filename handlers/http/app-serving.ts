/**
 * Lambda entry point of the `hosting` family (hosting.md §7, §10). Two callers, one bundle:
 *
 * - API Gateway, for the public `app_installations/public_settings/.../account.js|json` routes;
 * - CloudFront, through the function's URL, for the platform-owned files under every alias and
 *   for app files the bucket did not hold (rules 5 to 8 from the version's manifest).
 *
 * A function URL event has the `$default` route key; the routes of the table never do.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { hostingSource, publicAccountJsonAction, publicAccountScriptAction, serveCdnOrigin } from '../../shared/modules/hosting';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { cloudPlatform } from '../../shared/app/platforms';
import { config } from '../../shared/core/config';

export const family = defineFamily('hosting', {
  'GET /api/v1/app_installations/public_settings/{account_id}/{mode}/account.js': publicAccountScriptAction,
  'GET /api/v1/app_installations/public_settings/{account_id}/{mode}/account.json': publicAccountJsonAction,
});

const api = lambdaHandler(family);
const platform = cloudPlatform();
// Manifests and small files of immutable versions stay warm across invocations.
const source = hostingSource(platform.objects);
const { appsDomain, edgeSecret } = config();
const hosting = { appsDomain, edgeSecret };

export const handler = (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> =>
  event.routeKey === '$default' ? serveCdnOrigin(source, event, platform.clock.nowMs(), hosting) : api(event, context);
