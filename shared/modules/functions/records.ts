/**
 * Hosted functions as stored (functions.md §1, §5). The record holds what the API shows (the
 * settings last asked for) and two deployments: the one serving now and the one in progress.
 * Invocations read only `serving`, so an update never changes what runs until it is live, and
 * a failed update leaves the previous deployment serving.
 */
import type { FunctionRuntime } from '../../platform/ports';

/** A function's status (§5). */
export type HostedFunctionStatus = 'pending' | 'active' | 'failed';

/** The settings of a deployment: everything a runner needs besides the opened variables. */
export interface DeploymentSpec {
  /** New for every deployment (names its staged package and, locally, its warm children). */
  deployment_id: string;
  /** The uploaded zip in the `functions` bucket (never overwritten). */
  code_key: string;
  filename: string;
  bytes: number;
  runtime: FunctionRuntime;
  handler: string;
  timeout: number;
  memory_mb: number;
  /** The variables' names in order; their values are sealed in `secrets_sealed`. */
  variable_names: string[];
  /** `{environment_values: JSON}` sealed for the function (./variables), or null when none is set. */
  secrets_sealed: string | null;
  /** Only variables, timeout or memory changed: the code and entry point serving stay. */
  settings_only: boolean;
}

/** A stored hosted function. */
export interface HostedFunctionRecord {
  hosted_function_id: string;
  account_id: string;
  mode: 'live' | 'test';
  name: string;
  description: string | null;
  /** The settings last asked for (what the API shows), sealed variables included. */
  runtime: FunctionRuntime;
  handler: string;
  timeout: number;
  memory_mb: number;
  variable_names: string[];
  secrets_sealed: string | null;
  /** The code last uploaded (what a settings change or a retry deploys). */
  code_key: string;
  filename: string;
  bytes: number;
  status: HostedFunctionStatus;
  status_message: string | null;
  /** What serves invocations now; null until the first deployment went live. */
  serving: DeploymentSpec | null;
  /** The deployment in progress (run by `function-deploy` due work), or null. */
  pending: DeploymentSpec | null;
  /** Every code key uploaded and not yet removed (what deleting the function removes). */
  code_keys: string[];
  created_ms: number;
  modified_ms: number;
  deployed_ms: number | null;
  seq: number;
}
