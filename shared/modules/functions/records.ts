/**
 * Hosted functions as stored (functions.md §1, §5). The record holds what the API shows (the
 * settings last asked for) and two deployments: the one serving now and the one in progress.
 * Invocations read only `serving`, so an update never changes what runs until it is live, and
 * a failed update leaves the previous deployment serving.
 */
import type { FunctionRuntime } from '../../platform/ports';

/** A function's status (§5). */
export type HostedFunctionStatus = 'pending' | 'active' | 'failed';

/** A function's code and settings: what a deployment runs, and what the API shows (the last asked for). */
export interface FunctionCodeAndSettings {
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
}

/** One deployment: everything a runner needs besides the opened variables. */
export interface DeploymentSpec extends FunctionCodeAndSettings {
  /** New for every deployment (names its staged package and, locally, its warm children). */
  deployment_id: string;
  /** Only variables, timeout or memory changed: the code and entry point serving stay. */
  settings_only: boolean;
}

/**
 * A stored hosted function: its code and settings as last asked for (what the API shows; the
 * code is what a settings change or a retry deploys), and its deployments.
 */
export interface HostedFunctionRecord extends FunctionCodeAndSettings {
  hosted_function_id: string;
  account_id: string;
  mode: 'live' | 'test';
  name: string;
  description: string | null;
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
