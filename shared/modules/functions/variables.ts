/**
 * A function's environment variables (functions.md §3): names in clear, values sealed at rest
 * with the platform's secrets port (the same sealed-fields piece event subscriptions and license
 * services use, bound to the function), opened only to configure the running function and for
 * readers holding `hosted_functions:update`.
 */
import { InvalidInputError } from '../../http/errors';
import { sealedFields } from '../../outbound/sealed-fields';
import type { SecretsPort } from '../../platform/ports';
import type { RecordScope } from '../../store/records';
import type { SentVariable } from './schemas';

/** The variables as name → value, in the order they were sent. */
export type Variables = Record<string, string>;

/** Sealed as one value bound to the function (`hosted_function:<account>:<mode>:<id>`). */
const sealed = sealedFields({ purpose: 'hosted_function', permission: 'hosted_functions', idField: 'hosted_function_id', names: ['environment_values'] });

/** Whether a reader may see the values: the owner or a holder of `hosted_functions:update`, never a limited token. */
export const maySeeVariables = sealed.maySee;

/** Seals `variables` for the function `functionId` of `scope`; null when there are none. */
export async function sealVariables(variables: Variables, scope: RecordScope, functionId: string, port: SecretsPort): Promise<string | null> {
  if (Object.keys(variables).length === 0) return null;
  return sealed.seal({ environment_values: JSON.stringify(variables) }, scope, functionId, port);
}

/** Opens what `sealVariables` made (none when null). */
export async function openVariables(sealedValue: string | null, scope: RecordScope, functionId: string, port: SecretsPort): Promise<Variables> {
  const opened = await sealed.open(sealedValue, scope, functionId, port);
  if (!opened.environment_values) return {};
  // Defined one by one: a variable may be named like an Object.prototype member.
  const values: Variables = {};
  for (const [name, value] of Object.entries(JSON.parse(opened.environment_values) as Record<string, string>)) {
    Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return values;
}

/**
 * The set an update leaves (§3): the sent list replaces the stored one; an entry without a
 * value keeps the stored value of its name (400 when that name is not stored).
 */
export function variablesAfter(sent: readonly SentVariable[], stored: Variables): Variables {
  const next: Variables = {};
  for (const entry of sent) {
    let value = entry.value;
    if (value === undefined) {
      if (!Object.hasOwn(stored, entry.name)) {
        throw new InvalidInputError(`The variable ${entry.name} has no value and none is stored to keep.`, { property: 'environment_variables', reason: 'required', name: entry.name });
      }
      value = stored[entry.name]!;
    }
    Object.defineProperty(next, entry.name, { value, enumerable: true, writable: true, configurable: true });
  }
  return next;
}
