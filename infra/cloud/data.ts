/**
 * Stored state of the platform: the single DynamoDB table, the two S3 buckets and the KMS
 * key that seals secrets. Everything here is RETAIN: deleting the stack must never delete
 * customer data, uploaded code or the key that can still open sealed secrets.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/store/table';

/** Options of the data store (only what differs between stages). */
export interface DataStoreProps {
  /** Stage name, used in the key alias so several stages can share an account. */
  stage: string;
}

/** The table, buckets and secrets key every function of the platform works against. */
export class DataStore extends Construct {
  readonly table: dynamodb.Table;
  /** Uploaded hosted-function code (zips). */
  readonly functionsBucket: s3.Bucket;
  /** Hosted app versions, served through CloudFront. */
  readonly appsBucket: s3.Bucket;
  /** Seals stored secrets (license service keys, signing secrets). */
  readonly secretsKey: kms.Key;

  constructor(scope: Construct, id: string, props: DataStoreProps) {
    super(scope, id);

    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    this.functionsBucket = privateBucket(this, 'FunctionsBucket');
    this.appsBucket = privateBucket(this, 'AppsBucket');
    // Image files are deleted 90 days after their image (shared/modules/catalog/images); on this
    // versioned bucket a delete leaves a noncurrent version, which goes a day later.
    this.appsBucket.addLifecycleRule({ id: 'deleted-image-files', prefix: 'images/', noncurrentVersionExpiration: Duration.days(1), expiredObjectDeleteMarker: true });

    this.secretsKey = new kms.Key(this, 'SecretsKey', {
      description: `Cartwheel ${props.stage}: seals stored secrets`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      alias: `alias/cartwheel-${props.stage}-secrets`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}

/** A bucket nobody reaches except through IAM grants or CloudFront OAC, over TLS only. */
function privateBucket(scope: Construct, id: string): s3.Bucket {
  return new s3.Bucket(scope, id, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    versioned: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
