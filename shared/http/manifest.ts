/**
 * A module's manifest (`shared/modules/<name>/module.ts`): data only, what the app composes
 * (shared/app/modules.ts lists every manifest; the route table, resource registry, queues and
 * OpenAPI families are derived from that list): the route families (Lambda functions) it owns,
 * its routes, the resources it declares and the work queues it drains. Compare Medusa v2's
 * module definitions and Hono's `app.route()`: parts composed, not one table that imports all.
 */
import type { ResourceDeclaration } from '../rest/declarations';
import type { RouteDefinition } from './routes';

/**
 * What a family's Lambda function may touch; the CDK stack grants exactly this and nothing
 * more (least privilege per function).
 */
export interface FamilyGrants {
  /** Access to the single table. */
  table: 'none' | 'read' | 'readWrite';
  /** Use of the secrets KMS key. */
  secrets: 'none' | 'encrypt' | 'decrypt' | 'encryptDecrypt';
  /** May send email through SES. */
  email: boolean;
  /** Queues (by logical name, shared/app/queues.ts) the family sends messages to. */
  sendsTo: readonly string[];
  /** Object access under key prefixes of the buckets (images: put the files, delete them later; hosting: read app files). */
  objects?: readonly ObjectGrant[];
  /**
   * May rewrite the CDN's copy of the alias pointers (the CloudFront KeyValueStore the apps
   * edge function reads, hosting.md §10): its ARN in `CARTWHEEL_APP_POINTERS_KVS_ARN`.
   */
  edgePointers?: boolean;
  /**
   * Hosted functions' Lambdas (functions.md §10), all named `<prefix>-*` (the stage's prefix):
   * `manage` creates, updates, reads, deletes and invokes them, passes them the one execution role
   * and stages their packages under `deployed/` in the functions bucket (the management family and
   * due work); `invoke` only calls those tagged `cartwheel:platform` = prefix (the router, event
   * deliveries). Either puts the role's ARN and the prefix in `CARTWHEEL_FUNCTIONS_ROLE_ARN` and
   * `CARTWHEEL_FUNCTIONS_PREFIX`, and `manage` ships the runtime wrappers in the bundle.
   */
  functions?: 'manage' | 'invoke';
}

/** Object access under one key prefix of a bucket. */
export interface ObjectGrant {
  bucket: 'apps' | 'functions';
  prefix: string;
  read?: boolean;
  put?: boolean;
  delete?: boolean;
}

/** A route family: one Lambda function (one bundle) in the cloud, one module locally. */
export interface FamilyDefinition {
  /** The handler module both runtimes load; it exports `handler`. */
  entry: string;
  memoryMb: number;
  description: string;
  grants: FamilyGrants;
  /**
   * Packages with native code the bundle cannot inline: they ship beside it in `node_modules`,
   * for linux-arm64 (infra/cloud/native-modules.ts).
   */
  nativeModules?: readonly 'sharp'[];
  /**
   * The family prints documents (receipts, invoices: shared/flows/receipts): the fonts they embed
   * ship beside the bundle in `fonts/` (infra/cloud/platform-function.ts).
   */
  documentFonts?: true;
  /**
   * The family serves the API reference (`/docs`): the vendored script it answers ships beside
   * the bundle in `docs/` (infra/cloud/platform-function.ts; handlers/http/docs.ts reads it there).
   */
  apiReference?: true;
  /**
   * The function is also an origin of the apps CDN (through its function URL), so the CDN
   * depends on it: it is not told the CDN's own address (the image file root), which would
   * make the distribution depend on itself. Such a family renders no image links.
   */
  cdnOrigin?: true;
}

/** The consumer of a work queue: a handler module called with SQS events. */
export interface QueueConsumerDefinition {
  /** Handler module (exporting `handler`, called with an SQS event). */
  entry: string;
  batchSize: number;
  memoryMb: number;
  /** What the consumer may touch (as a family's grants). */
  grants: FamilyGrants;
}

/** A work queue with its dead-letter queue. */
export interface QueueDefinition {
  /** Logical name; also the env suffix `CARTWHEEL_QUEUE_URL_<NAME>` and local queue name. */
  name: string;
  description: string;
  /** Seconds a received message stays hidden while its worker runs. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Consumer handler module (exporting `handler`), once the capability that drains it exists. */
  consumer?: QueueConsumerDefinition;
}

/** What a module hands the app. */
export interface ModuleManifest {
  name: string;
  /** The route families (one Lambda function each) the module owns, by name. */
  families: Readonly<Record<string, FamilyDefinition>>;
  /** Its routes; a route may be served by another module's family (`/customers/{id}/payment_methods` by `customers`). */
  routes: readonly RouteDefinition[];
  /** The resources it declares (the registry expansion reads). */
  declarations: readonly ResourceDeclaration[];
  /** The work queues it drains. */
  queues?: readonly QueueDefinition[];
}

/** A manifest, with its literal family names, paths and methods kept for the compiler (route keys, parameters). */
export function defineModule<const M extends ModuleManifest>(manifest: M): M {
  return manifest;
}
