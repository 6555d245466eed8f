/**
 * Where hosted functions live: the entity (keyed by account, mode and generated id, listed in
 * creation order through the bucketed offset index) and its versioned writes.
 */
import { bySequence, defineEntity, type Change, type RecordScope, type TransactEntry } from '../../store/entity';
import { bucketCounterWrite, reserveSequence } from '../../store/offset-index';
import type { HostedFunctionRecord } from './records';

const functions = defineEntity<HostedFunctionRecord>({ name: 'hosted function', collection: 'hosted_functions', scope: 'mode', idField: 'hosted_function_id',
  indexes: { gsi1: 'hosted functions by creation sequence (offset list)' },
  indexKeys: (record, partition) => ({ gsi1: bySequence(partition, record.seq) }) });

/** The listing partition of a scope's functions (what the offset list reads). */
export function hostedFunctionPartition(scope: RecordScope): string {
  return functions.partition(scope);
}

/** Reserves the listing position (sequence) of a new function. */
export function reserveHostedFunctionSequence(scope: RecordScope): Promise<number> {
  return reserveSequence(functions.partition(scope));
}

/** Writes a new function with its bucket counter and `extra` entries (its deployment work) in one transaction. */
export async function insertHostedFunction(scope: RecordScope, record: HostedFunctionRecord, extra: TransactEntry[]): Promise<void> {
  await functions.create(record, { sequence: record.seq, scope, extra });
}

/** A function by id; 404, or 400 token_type_mismatch when it exists in the other mode. */
export function getHostedFunction(scope: RecordScope, functionId: string): Promise<HostedFunctionRecord> {
  return functions.get(scope, functionId);
}

/** A function by id, or undefined (strongly consistent). */
export function findHostedFunction(scope: RecordScope, functionId: string): Promise<HostedFunctionRecord | undefined> {
  return functions.find(scope, functionId);
}

/** The versioned update of a function (read again after a lost race). */
export function updateHostedFunction<A>(scope: RecordScope, functionId: string, change: Change<HostedFunctionRecord, A>): Promise<A | HostedFunctionRecord> {
  return functions.update(scope, functionId, change);
}

/** Deletes a function and counts it out of its listing, with `extra` entries (its removal work), over the version read. */
export async function removeHostedFunction(scope: RecordScope, functionId: string, extra: (current: HostedFunctionRecord) => TransactEntry[]): Promise<HostedFunctionRecord | undefined> {
  let removed: HostedFunctionRecord | undefined;
  await functions.remove(scope, functionId, (current) => {
    removed = current;
    return { extra: [{ name: 'hosted function.bucket-counter', item: bucketCounterWrite(functions.partition(scope), current.seq, -1) }, ...extra(current)] };
  });
  return removed;
}
