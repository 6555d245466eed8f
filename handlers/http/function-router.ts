/**
 * Lambda entry point of the `function-router` family: the invoke URLs of hosted functions,
 * `/func/v1/<id>` (functions.md §7). `surfaceHandler` builds the same handler over another
 * platform (the local gateway's); the cloud handler is built over the cloud platform on first call.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { apiGate } from '../../shared/app/gate';
import { cloudPlatform } from '../../shared/app/platforms';
import { config } from '../../shared/core/config';
import type { ApiGate } from '../../shared/http/gate';
import { functionRouter } from '../../shared/modules/functions';
import type { Platform } from '../../shared/platform/ports';

/** The invoke surface's handler over `platform` and `gate`. */
export function surfaceHandler(platform: Platform, gate: ApiGate) {
  return functionRouter(platform, gate);
}

let built: ReturnType<typeof functionRouter> | undefined;

export const handler = (event: APIGatewayProxyEventV2, context: Context) => {
  if (!built) {
    const platform = cloudPlatform();
    built = surfaceHandler(platform, apiGate(platform.clock, config()));
  }
  return built(event, context);
};
