/**
 * Stored state of the platform: the single DynamoDB table, the two S3 buckets and the KMS
 * key that seals secrets. Everything here is RETAIN: deleting the stack must never delete
 * customer data, uploaded code or the key that can still open sealed secrets.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/store/table';

/** Options of the data store (only what differs between stages). */
export interface DataStoreProps {
  /** Stage name, used in the key alias so several stages can share an account. */
  stage: string;
  /** ARN of a backup vault in another region each daily backup is copied to. @default no copy */
  backupCopyVaultArn?: string;
  /** Days access logs are kept. @default 90 */
  accessLogDays?: number;
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
  /** Access logs: the buckets' server access logs (`s3/`) and CloudFront's (`cloudfront/`). */
  readonly logsBucket: s3.Bucket;
  /** The daily backup of the table and both buckets. */
  readonly backupPlan: backup.BackupPlan;
  /** The role AWS Backup uses for the plan's selection. */
  readonly backupRole: iam.Role;

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

    // CloudFront's standard logs are written with an ACL, so this one bucket keeps ACLs enabled
    // (the log delivery account owns nothing here: BUCKET_OWNER_PREFERRED).
    this.logsBucket = new s3.Bucket(this, 'LogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(props.accessLogDays ?? 90) }],
    });
    this.functionsBucket = privateBucket(this, 'FunctionsBucket', this.logsBucket);
    this.appsBucket = privateBucket(this, 'AppsBucket', this.logsBucket);
    // Every overwrite and delete leaves a noncurrent version (the buckets are versioned so a
    // mistake can be undone): they go after 30 days, incomplete uploads after 7.
    for (const bucket of [this.functionsBucket, this.appsBucket]) {
      bucket.addLifecycleRule({ id: 'noncurrent-versions', noncurrentVersionExpiration: Duration.days(30), abortIncompleteMultipartUploadAfter: Duration.days(7) });
    }
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

    // AWS Backup: daily, kept 35 days, optionally copied to a vault in another region
    // (context backupCopyVaultArn). Point-in-time recovery covers the table's last 35 days by
    // the second; this plan adds restorable copies of the buckets and a copy outside the region.
    const vault = new backup.BackupVault(this, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN });
    const lifecycle = { deleteAfter: Duration.days(BACKUP_RETENTION_DAYS) };
    this.backupPlan = new backup.BackupPlan(this, 'BackupPlan', { backupVault: vault });
    this.backupPlan.addRule(
      new backup.BackupPlanRule({
        ruleName: 'daily',
        scheduleExpression: events.Schedule.cron({ minute: '0', hour: '3' }),
        ...lifecycle,
        ...(props.backupCopyVaultArn
          ? { copyActions: [{ destinationBackupVault: backup.BackupVault.fromBackupVaultArn(this, 'BackupCopyVault', props.backupCopyVaultArn), ...lifecycle }] }
          : {}),
      }),
    );
    const backupRole = (this.backupRole = new iam.Role(this, 'BackupRole', { assumedBy: new iam.ServicePrincipal('backup.amazonaws.com'), description: 'AWS Backup: back up and restore the Cartwheel table and buckets' }));
    this.backupPlan.addSelection('Stored', {
      role: backupRole,
      resources: [backup.BackupResource.fromDynamoDbTable(this.table), backup.BackupResource.fromArn(this.functionsBucket.bucketArn), backup.BackupResource.fromArn(this.appsBucket.bucketArn)],
      allowRestores: true,
    });
    // Backing up and restoring S3 needs AWS Backup's S3 policies besides the general ones.
    for (const policy of ['AWSBackupServiceRolePolicyForS3Backup', 'AWSBackupServiceRolePolicyForS3Restore']) {
      backupRole.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(policy));
    }
  }
}

/** Days each daily backup is kept. */
export const BACKUP_RETENTION_DAYS = 35;

/** A bucket nobody reaches except through IAM grants or CloudFront OAC, over TLS only, with its server access logs. */
function privateBucket(scope: Construct, id: string, logsBucket: s3.IBucket): s3.Bucket {
  return new s3.Bucket(scope, id, {
    serverAccessLogsBucket: logsBucket,
    serverAccessLogsPrefix: `s3/${id}/`,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    versioned: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
