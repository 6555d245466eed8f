/**
 * Names of the stack outputs, as data.
 *
 * The account bootstrap command reads a deployed stack's outputs by these names, so this
 * module stays free of aws-cdk-lib: a script can import it without loading the CDK.
 */

/** Output names of the Cartwheel stack (queue URLs are named by `queueUrlOutput`). */
export const outputNames = {
  apiUrl: 'ApiUrl',
  functionsUrl: 'FunctionsUrl',
  signinUrl: 'SigninUrl',
  /** The API reference (`/docs`), rendered from the API's own description. */
  docsUrl: 'DocsUrl',
  appsDistributionDomain: 'AppsDistributionDomain',
  /** Root URL the image files are served under (the apps distribution). */
  imagesUrl: 'ImagesUrl',
  /** Only with a custom apps domain: apps live at `<account_id>.<AppsDomain>`. */
  appsDomain: 'AppsDomain',
  tableName: 'TableName',
  functionsBucketName: 'FunctionsBucketName',
  appsBucketName: 'AppsBucketName',
  secretsKeyId: 'SecretsKeyId',
  /** The CloudFront KeyValueStore holding the CDN's copy of the alias pointers. */
  appPointersArn: 'AppPointersArn',
} as const;

/** PascalCase of a kebab-case logical name, e.g. `event-notifications` → `EventNotifications`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** Output name carrying a queue's URL, e.g. `event-notifications` → `EventNotificationsQueueUrl`. */
export function queueUrlOutput(queueName: string): string {
  return `${pascalCase(queueName)}QueueUrl`;
}
