/**
 * What the cloud needs for hosted apps' management side (hosting.md §3, §10): the apps family
 * may read, write and delete objects under `apps/` and `app-manifests/` of the apps bucket and
 * nothing else there, and the due-work job may read manifests and delete what they list.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../shared/app/routes';
import { functionWithRole, roleStatements, synthesize, synthTimeout, type Synthesized } from './synthesize';

describe('hosted apps in the cloud', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  const s3Statements = (role: string) =>
    roleStatements(synth.json, functionWithRole(synth.json, role)).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')));
  const actionsOn = (statements: ReturnType<typeof s3Statements>, prefix: string) =>
    statements.filter((statement) => JSON.stringify(statement.Resource).includes(`/${prefix}*`)).flatMap((statement) => [statement.Action].flat());

  it('runs the apps family with room for a 50 MB upload', () => {
    const fn = synth.json.Resources[functionWithRole(synth.json, 'family:apps')]!.Properties!;
    expect(fn.MemorySize).toBe(families.apps.memoryMb);
    expect(families.apps.memoryMb).toBeGreaterThanOrEqual(1024);
  });

  it('lets the apps family read, put and delete under apps/ and app-manifests/ of the apps bucket only', () => {
    const statements = s3Statements('family:apps');
    for (const prefix of ['apps/', 'app-manifests/']) {
      const actions = actionsOn(statements, prefix);
      expect(actions, prefix).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']));
    }
    for (const statement of statements) {
      const resource = JSON.stringify(statement.Resource);
      expect(resource).toMatch(/DataAppsBucket/);
      expect(resource).not.toContain('/images/*');
      expect(resource).not.toMatch(/FunctionsBucket/);
    }
  });

  it('tells functions where apps live: under AppsDomain when set, else under the apps distribution\'s domain', () => {
    const variables = synth.json.Resources[functionWithRole(synth.json, 'family:apps')]!.Properties!.Environment.Variables;
    const template = JSON.stringify(variables.CARTWHEEL_PUBLIC_APPS_URL);
    expect(template).toContain('https://{account_id}.');
    expect(template).toMatch(/"Fn::If":\["HasAppsDomain",\{"Ref":"AppsDomain"\},\{"Fn::GetAtt":\["[A-Za-z0-9]*Distribution[A-Za-z0-9]*","DomainName"\]\}\]/);
    expect((synth.json as unknown as { Conditions: Record<string, unknown> }).Conditions.HasAppsDomain).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AppsDomain' }, ''] }] });
  });

  it('lets the due-work job read manifests and delete version files, never write them', () => {
    const statements = s3Statements('schedule:due-work');
    expect(actionsOn(statements, 'apps/')).toEqual(['s3:DeleteObject']);
    expect(actionsOn(statements, 'app-manifests/')).toEqual(expect.arrayContaining(['s3:GetObject', 's3:DeleteObject']));
    // It writes hosted functions' packages (functions bucket), never the apps bucket.
    const onApps = statements.filter((statement) => JSON.stringify(statement.Resource).includes('DataAppsBucket'));
    expect(onApps.flatMap((statement) => [statement.Action].flat()).some((action) => action.startsWith('s3:Put'))).toBe(false);
  });
});
