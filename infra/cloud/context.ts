/**
 * The CDK context an operator passes (`cdk deploy -c name=value`, or `cdk.json`), read into the
 * stack's props in one place: infra/cloud/app.ts uses it, and the template tests synthesize
 * with the same function for each combination (test/infra/operations.test.ts).
 *
 * | context                        | effect                                                         |
 * |--------------------------------|----------------------------------------------------------------|
 * | stage                          | stack `Cartwheel-<stage>` (default `dev`)                      |
 * | appsDomain + appsCertificateArn| hosted apps on `*.<appsDomain>` (us-east-1 certificate)        |
 * | apiDomain + apiCertificateArn  | the API on its own domain; execute-api endpoint disabled       |
 * | alarmEmail                     | default of the AlarmEmail parameter                            |
 * | waf=true / wafWebAclArn        | web ACL on the distribution (created: us-east-1 only)          |
 * | wafRatePer5Minutes             | the ACL's per-IP rate rule (default 2000)                      |
 * | backupCopyVaultArn             | copy each daily backup to this vault (another region)          |
 * | tracing=true                   | X-Ray active tracing + Powertools Tracer on every function     |
 * | consumerMaxConcurrency         | most concurrent invocations per queue consumer (default 50)     |
 */
import type { CartwheelStackProps } from './stack';

/** What the context sets: everything of the stack's props but the tables. */
export type ContextProps = Pick<CartwheelStackProps, 'stage' | 'appsCustomDomain' | 'apiCustomDomain' | 'alarmEmail' | 'waf' | 'backupCopyVaultArn' | 'tracing' | 'consumerMaxConcurrency' | 'description'>;

/** The context names the app reads (a typo in `-c` is an error, not a silent default). */
export const contextNames = ['stage', 'appsDomain', 'appsCertificateArn', 'apiDomain', 'apiCertificateArn', 'alarmEmail', 'waf', 'wafWebAclArn', 'wafRatePer5Minutes', 'backupCopyVaultArn', 'tracing', 'consumerMaxConcurrency'] as const;

/** The stack props a context gives; `read` answers a context value (undefined when unset). */
export function propsFromContext(read: (name: (typeof contextNames)[number]) => unknown): ContextProps {
  const value = (name: (typeof contextNames)[number]): string | undefined => {
    const raw = read(name);
    return raw === undefined || raw === null || raw === '' ? undefined : String(raw);
  };
  const flag = (name: (typeof contextNames)[number]): boolean => {
    const raw = value(name);
    if (raw !== undefined && raw !== 'true' && raw !== 'false') throw new Error(`Context ${name} must be true or false, not "${raw}"`);
    return raw === 'true';
  };
  const pair = (domain: 'appsDomain' | 'apiDomain', certificate: 'appsCertificateArn' | 'apiCertificateArn') => {
    const domainName = value(domain);
    const certificateArn = value(certificate);
    if ((domainName === undefined) !== (certificateArn === undefined)) throw new Error(`Set both ${domain} and ${certificate} context values, or neither`);
    return domainName && certificateArn ? { domainName, certificateArn } : undefined;
  };

  const stage = value('stage') ?? 'dev';
  // Stage names end up in resource names (API, key alias), which accept only these.
  if (!/^[a-z][a-z0-9-]{0,23}$/.test(stage)) throw new Error(`Invalid stage "${stage}": use lowercase letters, digits and dashes (max 24)`);
  const number = (name: (typeof contextNames)[number], min: number, max: number): number | undefined => {
    const raw = value(name);
    if (raw === undefined) return undefined;
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`Context ${name} must be an integer from ${min} to ${max}, not "${raw}"`);
    return parsed;
  };
  const wafWebAclArn = value('wafWebAclArn');
  if (wafWebAclArn && flag('waf')) throw new Error('Set waf=true (create a web ACL) or wafWebAclArn (use one), not both');
  const ratePer5Minutes = number('wafRatePer5Minutes', 100, 2_000_000_000) ?? 2000;
  const apiCustomDomain = pair('apiDomain', 'apiCertificateArn');
  const appsCustomDomain = pair('appsDomain', 'appsCertificateArn');
  const alarmEmail = value('alarmEmail');
  const backupCopyVaultArn = value('backupCopyVaultArn');
  const consumerMaxConcurrency = number('consumerMaxConcurrency', 2, 1000);
  return {
    description: `Cartwheel commerce platform (${stage})`,
    stage,
    ...(appsCustomDomain ? { appsCustomDomain } : {}),
    ...(apiCustomDomain ? { apiCustomDomain } : {}),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(wafWebAclArn ? { waf: { webAclArn: wafWebAclArn } } : flag('waf') ? { waf: { create: true, ratePer5Minutes } } : {}),
    ...(backupCopyVaultArn ? { backupCopyVaultArn } : {}),
    tracing: flag('tracing'),
    ...(consumerMaxConcurrency ? { consumerMaxConcurrency } : {}),
  };
}
