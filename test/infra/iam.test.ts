import { beforeAll, describe, expect, it } from 'vitest';
import { type FamilyDefinition, type FamilyGrants, fallbackFamily, families } from '../../shared/app/routes';
import { queueUrlVariable } from '../../shared/app/queues';
import { tableDefinition } from '../../shared/store/table';
import { type Synthesized, type TemplateJson, allowedActions, functionWithRole, resourcesOfType, roleStatements, synthesize, synthTimeout } from './synthesize';

const platformServices = ['dynamodb', 'kms', 'ses', 'sqs'];
const dynamodbWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** Table ARN and its indexes, as CloudFormation renders them for a table logical id. */
function tableResources(json: TemplateJson): unknown[] {
  const tableId = resourcesOfType(json, 'AWS::DynamoDB::Table')[0]!;
  const arn = { 'Fn::GetAtt': [tableId, 'Arn'] };
  return [arn, ...tableDefinition.indexes.map((index) => ({ 'Fn::Join': ['', [arn, `/index/${index.name}`]] }))];
}

/** No statement anywhere may use `*` as action, or `*` as resource for a platform service. */
function expectNoWildcards(json: TemplateJson): void {
  for (const id of resourcesOfType(json, 'AWS::IAM::Policy')) {
    for (const statement of json.Resources[id]!.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]) {
      const actions = [statement.Action].flat();
      expect(actions).not.toContain('*');
      const touchesPlatform = actions.some((action) => platformServices.some((service) => action.startsWith(`${service}:`)));
      const resources = [statement.Resource].flat();
      if (touchesPlatform) expect(resources).not.toContain('*');
      for (const action of actions) expect(action).not.toMatch(/^(dynamodb|kms|sqs):\*$/);
    }
  }
}

describe('least privilege for the real families', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  it('gives the fallback function no platform permissions at all', () => {
    const fallback = functionWithRole(synth.json, `family:${fallbackFamily}`);
    const actions = allowedActions(synth.json, fallback);
    for (const service of platformServices) {
      expect(actions.filter((action) => action.startsWith(`${service}:`))).toEqual([]);
    }
  });

  it('scopes the auths family table access, writes included, to the table and its indexes', () => {
    expect(families.auths.grants.table).toBe('readWrite');
    const statements = roleStatements(synth.json, functionWithRole(synth.json, 'family:auths')).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(dynamodbWrites));
    for (const statement of statements) expect(statement.Resource).toEqual(tableResources(synth.json));
  });

  it('grants each family only the services its grants name', () => {
    for (const [name, family] of Object.entries(families)) {
      const actions = allowedActions(synth.json, functionWithRole(synth.json, `family:${name}`));
      const uses = (service: string): boolean => actions.some((action) => action.startsWith(`${service}:`));
      expect(uses('dynamodb'), `${name} dynamodb`).toBe(family.grants.table !== 'none');
      expect(uses('kms'), `${name} kms`).toBe(family.grants.secrets !== 'none');
      expect(uses('ses'), `${name} ses`).toBe(family.grants.email);
      expect(uses('sqs'), `${name} sqs`).toBe(family.grants.sendsTo.length > 0);
    }
  });

  it('has no wildcard action, and no wildcard resource for dynamodb/kms/sqs', () => {
    expectNoWildcards(synth.json);
  });
});

describe('least privilege for each kind of grant', () => {
  const fixture = 'test/infra/fixtures/handler.ts';
  const family = (description: string, grants: Partial<FamilyGrants>): FamilyDefinition => ({
    entry: fixture,
    memoryMb: 128,
    description,
    grants: { table: 'none', secrets: 'none', email: false, sendsTo: [], ...grants },
  });
  const testFamilies: Record<string, FamilyDefinition> = {
    reader: family('reads the table', { table: 'read' }),
    sealer: family('encrypts secrets', { secrets: 'encrypt' }),
    opener: family('decrypts secrets', { secrets: 'decrypt' }),
    mailer: family('sends email', { email: true }),
    notifier: family('queues event notifications', { sendsTo: ['event-notifications'] }),
    fallback: family('answers everything else', {}),
  };
  let synth: Synthesized;
  let statementsOf: (name: string) => ReturnType<typeof roleStatements>;
  let actionsOf: (name: string) => string[];
  beforeAll(() => {
    synth = synthesize({
      families: testFamilies,
      fallbackFamily: 'fallback',
      routes: Object.keys(testFamilies)
        .filter((name) => name !== 'fallback')
        .map((name) => ({ method: 'GET', path: `/api/v1/${name}`, family: name })),
    });
    statementsOf = (name) => roleStatements(synth.json, functionWithRole(synth.json, `family:${name}`));
    actionsOf = (name) => allowedActions(synth.json, functionWithRole(synth.json, `family:${name}`));
  }, synthTimeout);

  it('read: table reads on the table and indexes, no writes', () => {
    const actions = actionsOf('reader');
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    for (const write of dynamodbWrites) expect(actions).not.toContain(write);
    for (const statement of statementsOf('reader')) expect(statement.Resource).toEqual(tableResources(synth.json));
    const env = synth.json.Resources[functionWithRole(synth.json, 'family:reader')]!.Properties!.Environment.Variables;
    expect(env.CARTWHEEL_TABLE).toEqual({ Ref: resourcesOfType(synth.json, 'AWS::DynamoDB::Table')[0] });
  });

  it('encrypt and decrypt: only their half of the key, on the secrets key only', () => {
    const keyArn = { 'Fn::GetAtt': [resourcesOfType(synth.json, 'AWS::KMS::Key')[0]!, 'Arn'] };
    expect(actionsOf('sealer')).toEqual(['kms:Encrypt']);
    expect(actionsOf('sealer')).not.toContain('kms:Decrypt');
    expect(actionsOf('opener')).toEqual(['kms:Decrypt']);
    for (const name of ['sealer', 'opener']) {
      for (const statement of statementsOf(name)) expect(statement.Resource).toEqual(keyArn);
      const env = synth.json.Resources[functionWithRole(synth.json, `family:${name}`)]!.Properties!.Environment.Variables;
      expect(env).toMatchObject({ CARTWHEEL_KMS_KEY_ID: { Ref: resourcesOfType(synth.json, 'AWS::KMS::Key')[0] } });
      expect(env.CARTWHEEL_SECRETS).toBeUndefined();
      expect(env.CARTWHEEL_TABLE).toBeUndefined();
    }
  });

  it('email: ses:SendEmail and ses:SendRawEmail on the configured sender\'s identity (address or domain) only, from that address', () => {
    expect(actionsOf('mailer').sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
    const [statement] = statementsOf('mailer');
    expect(JSON.stringify(statement!.Resource)).not.toContain(':identity/*');
    expect(JSON.stringify(statement!.Resource)).toContain(':identity/');
    expect(JSON.stringify(statement!.Resource)).toContain('EmailFrom');
    expect(JSON.stringify(statement!.Resource)).toContain('AWS::AccountId');
    for (const name of Object.keys(testFamilies).filter((n) => n !== 'mailer')) {
      expect(actionsOf(name).some((action) => action.startsWith('ses:'))).toBe(false);
    }
  });

  it('sendsTo: sqs:SendMessage on the named queue only, with its URL in the environment', () => {
    const queueId = resourcesOfType(synth.json, 'AWS::SQS::Queue').find((id) =>
      JSON.stringify(synth.json.Outputs?.EventNotificationsQueueUrl?.Value).includes(`"${id}"`),
    )!;
    expect(actionsOf('notifier')).toEqual(['sqs:SendMessage']);
    expect(statementsOf('notifier')[0]!.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    const env = synth.json.Resources[functionWithRole(synth.json, 'family:notifier')]!.Properties!.Environment.Variables;
    expect(env[queueUrlVariable('event-notifications')]).toEqual({ Ref: queueId });
    expect(env[queueUrlVariable('license-requests')]).toBeUndefined();
  });

  it('none: a family without grants gets no platform permissions', () => {
    expect(statementsOf('fallback')).toEqual([]);
  });

  it('has no wildcard action, and no wildcard resource for dynamodb/kms/sqs', () => {
    expectNoWildcards(synth.json);
  });

  it('rejects sendsTo naming a queue that does not exist', () => {
    expect(() =>
      synthesize({
        families: { fallback: family('fallback', {}), lost: family('lost', { sendsTo: ['no-such-queue'] }) },
        fallbackFamily: 'fallback',
        routes: [{ method: 'GET', path: '/api/v1/lost', family: 'lost' }],
      }),
    ).toThrow(/Unknown queue "no-such-queue"/);
  });
});
