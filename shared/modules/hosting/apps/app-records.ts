/**
 * The records of hosted apps (hosting.md §2–§5), as the operations and serving read them.
 * Apps are account-wide: both modes see the same apps; each alias says which mode it injects.
 */

/** A hosted app as the platform reads it (`findApp`): settings and style parsed, custom code included. */
export interface AppRecord {
  app_id: string;
  account_id: string;
  name: string;
  /** The primary alias. */
  alias: string;
  /** The mode injected under the primary alias. */
  test: boolean;
  /** The version the primary alias (and every alias that follows it) serves; null until a deploy. */
  live_version_id: string | null;
  settings: Record<string, unknown>;
  style: Record<string, unknown>;
  custom_css: string | null;
  custom_javascript: string | null;
  created_ms: number;
  modified_ms: number;
  /** Last deploy or rollback. */
  deployed_ms: number | null;
  live_version_number: number | null;
  /** The version that was live just before the most recent deployment (the rollback target). */
  previous_version_id: string | null;
  /** Every alias of the app, the primary included → the version it is pinned to, or null when it follows the live version. */
  alias_pins: Record<string, string | null>;
  /** Versions uploaded so far (the last version `number`). */
  versions_uploaded: number;
  /** Deployments made so far. */
  deployments_made: number;
  /** Bumped by every change that moves a pointer or the app; writes are conditional on it. */
  revision: number;
  /** Listing position (creation order). */
  seq: number;
}

/** Where a version is in its life: only `ready` versions can be served. */
export type VersionStatus = 'processing' | 'ready' | 'failed';

/** An uploaded version of an app. */
export interface VersionRecord {
  version_id: string;
  app_id: string;
  account_id: string;
  /** 1, 2, 3 ... per app, in upload order. */
  number: number;
  label: string | null;
  comments: string | null;
  status: VersionStatus;
  status_message: string | null;
  /** Stored files and their total size. */
  files: number;
  bytes: number;
  /** Size of the uploaded zip. */
  package_bytes: number;
  /** Zip paths not stored (at most 100 listed), and how many there were. */
  ignored_paths: string[];
  ignored_count: number;
  created_ms: number;
  modified_ms: number;
}

/** A deploy or rollback (hosting.md §4.3). */
export interface DeploymentRecord {
  deployment_id: string;
  app_id: string;
  account_id: string;
  action: 'deploy' | 'rollback';
  version_id: string;
  version_number: number;
  previous_version_id: string | null;
  previous_version_number: number | null;
  /** The auth (token) that made it. */
  auth_id: string | null;
  user_id: string | null;
  created_ms: number;
  /** Its place in the app's deployments listing. */
  seq: number;
}

/**
 * What serving reads per request: one item per (account, alias), rewritten in the same
 * transaction as every change that moves it (deploy, rollback, alias changes, app alias
 * rename, app delete).
 */
export interface AliasPointer {
  account_id: string;
  alias: string;
  app_id: string;
  /** The version served under the alias (the live one, or the pinned one); null while nothing is deployed. */
  version_id: string | null;
  /** The mode injected under the alias. */
  test: boolean;
}

/** The stored pointer item: the pointer, and the alias's own facts. */
export interface AliasRecord extends AliasPointer {
  /** Whether it is the app's primary alias. */
  primary: boolean;
  /** The version it is pinned to, or null when it follows the live version. */
  pinned_version_id: string | null;
  created_ms: number;
  modified_ms: number;
}

/** A version file's facts in the manifest. */
export interface ManifestFile {
  bytes: number;
  /** A strong ETag: `"<first 32 hex characters of the content's SHA-256>"`. */
  etag: string;
  content_type: string;
}

/** The file manifest of a version (`app-manifests/<account_id>/<app_id>/<version_id>.json`). */
export interface VersionManifest {
  version_id: string;
  uploaded_ms: number;
  files: Record<string, ManifestFile>;
}
