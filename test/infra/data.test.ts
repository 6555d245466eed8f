import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../shared/store/table';
import { type Synthesized, resourcesOfType, synthesize, synthTimeout } from './synthesize';

describe('data: table, buckets and secrets key', () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthesize();
  }, synthTimeout);

  it('builds exactly one table from the table definition', () => {
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('declares every key attribute as a string', () => {
    const table = synth.json.Resources[resourcesOfType(synth.json, 'AWS::DynamoDB::Table')[0]!]!;
    const attributes = table.Properties!.AttributeDefinitions as { AttributeName: string; AttributeType: string }[];
    const expected = [
      tableDefinition.partitionKey,
      tableDefinition.sortKey,
      ...tableDefinition.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ];
    expect(attributes.map((a) => a.AttributeName).sort()).toEqual([...expected].sort());
    expect(attributes.every((a) => a.AttributeType === 'S')).toBe(true);
  });

  it('has the three GSIs with string keys and ALL projection', () => {
    const table = synth.json.Resources[resourcesOfType(synth.json, 'AWS::DynamoDB::Table')[0]!]!;
    const indexes = table.Properties!.GlobalSecondaryIndexes as {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: string }[];
      Projection: { ProjectionType: string };
    }[];
    expect(indexes.map((index) => index.IndexName)).toEqual(['gsi1', 'gsi2', 'gsi3']);
    for (const definition of tableDefinition.indexes) {
      const index = indexes.find((candidate) => candidate.IndexName === definition.name)!;
      expect(index.KeySchema).toEqual([
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        { AttributeName: definition.sortKey, KeyType: 'RANGE' },
      ]);
      expect(index.Projection).toEqual({ ProjectionType: 'ALL' });
    }
  });

  it('enables point-in-time recovery, TTL on `ttl` and encryption', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('retains the table when the stack is deleted', () => {
    synth.template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('has two private, encrypted, versioned, retained data buckets (and the access logs bucket, test/infra/operations.test.ts)', () => {
    synth.template.resourceCountIs('AWS::S3::Bucket', 3);
    const dataBuckets = resourcesOfType(synth.json, 'AWS::S3::Bucket').filter((id) => synth.json.Resources[id]!.Properties!.VersioningConfiguration);
    expect(dataBuckets).toHaveLength(2);
    for (const id of dataBuckets) {
      const bucket = synth.json.Resources[id]!;
      expect(bucket.DeletionPolicy).toBe('Retain');
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        VersioningConfiguration: { Status: 'Enabled' },
      });
    }
  });

  it('denies non-TLS access to both buckets', () => {
    for (const id of resourcesOfType(synth.json, 'AWS::S3::Bucket')) {
      synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('has a retained KMS key for secrets with rotation enabled', () => {
    synth.template.resourceCountIs('AWS::KMS::Key', 1);
    synth.template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({ EnableKeyRotation: true }),
      DeletionPolicy: 'Retain',
    });
  });

  it('outputs the table, bucket and key names', () => {
    const outputs = synth.json.Outputs ?? {};
    const tableId = resourcesOfType(synth.json, 'AWS::DynamoDB::Table')[0]!;
    expect(outputs.TableName?.Value).toEqual({ Ref: tableId });
    expect(outputs.FunctionsBucketName?.Value).toEqual({ Ref: expect.stringMatching(/^DataFunctionsBucket/) });
    expect(outputs.AppsBucketName?.Value).toEqual({ Ref: expect.stringMatching(/^DataAppsBucket/) });
    expect(outputs.SecretsKeyId?.Value).toEqual({ Ref: resourcesOfType(synth.json, 'AWS::KMS::Key')[0] });
  });
});
