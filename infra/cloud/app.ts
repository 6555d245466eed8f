/**
 * The CDK app (cdk.json runs it with tsx): one `Cartwheel-<stage>` stack built from the
 * real route, family and queue tables.
 *
 * Context: `stage` (default `dev`); optionally `appsDomain` + `appsCertificateArn` (a
 * us-east-1 certificate for `*.<appsDomain>`) to serve hosted apps on a custom domain.
 * The stack is environment-agnostic, so `cdk synth` needs no account, lookups or Docker.
 */
import { App } from 'aws-cdk-lib';
import { queues } from '../../shared/app/queues';
import { fallbackFamily, families, routes } from '../../shared/app/routes';
import { CartwheelStack } from './stack';

const app = new App();

/** A context value as a string, or undefined when unset or empty. */
function context(name: string): string | undefined {
  const value: unknown = app.node.tryGetContext(name);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

const stage = context('stage') ?? 'dev';
// Stage names end up in resource names (API, key alias), which accept only these.
if (!/^[a-z][a-z0-9-]{0,23}$/.test(stage)) {
  throw new Error(`Invalid stage "${stage}": use lowercase letters, digits and dashes (max 24)`);
}

const appsDomain = context('appsDomain');
const appsCertificateArn = context('appsCertificateArn');
if ((appsDomain === undefined) !== (appsCertificateArn === undefined)) {
  throw new Error('Set both appsDomain and appsCertificateArn context values, or neither');
}

new CartwheelStack(app, `Cartwheel-${stage}`, {
  description: `Cartwheel commerce platform (${stage})`,
  stage,
  queues,
  families,
  routes,
  fallbackFamily,
  appsCustomDomain:
    appsDomain && appsCertificateArn ? { domainName: appsDomain, certificateArn: appsCertificateArn } : undefined,
});

app.synth();
