/**
 * Lambda entry point of the `signin` family: the sign-in page, `{signin_url}` (auth.md 5.1).
 * `surfaceHandler` builds the same handler over another platform (the local gateway's); the
 * cloud handler is built over the cloud platform on first call.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { apiGate } from '../../shared/app/gate';
import { cloudPlatform } from '../../shared/app/platforms';
import { config } from '../../shared/core/config';
import { signInPage } from '../../shared/flows/sign-in/sign-in-page';
import type { ApiGate } from '../../shared/http/gate';
import type { Platform } from '../../shared/platform/ports';

/** The sign-in surface's handler over `platform` and `gate`. */
export function surfaceHandler(platform: Platform, gate: ApiGate) {
  return signInPage(platform, gate, { appsTemplate: config().publicUrls.appsTemplate });
}

let built: ReturnType<typeof signInPage> | undefined;

export const handler = (event: APIGatewayProxyEventV2, context: Context) => {
  if (!built) {
    const platform = cloudPlatform();
    built = surfaceHandler(platform, apiGate(platform.clock, config()));
  }
  return built(event, context);
};
