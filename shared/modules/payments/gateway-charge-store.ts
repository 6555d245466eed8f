/**
 * The built-in test gateway's ledger: one item per charge key, as a real gateway keeps its
 * transactions. It lives in the platform's table because the test gateway lives in the
 * platform; a charge is the conditional creation of its ledger item, so a key is charged once.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../store/client';
import { byDate, defineEntity, IS_NEW } from '../../store/entity';
import { TransactionRejectedError } from '../../store/errors';
import { writeOne } from '../../store/transact';
import type { ChargeResult, RefundResult } from '../../platform/ports';

/**
 * A ledger entry: the charge's result, or `voided` when the key was closed before any charge;
 * or a refund (`refunded`) of the charge keyed `charge_key`, with its result.
 */
export interface GatewayChargeRecord {
  key: string;
  state: 'charged' | 'voided' | 'refunded';
  result: ChargeResult | null;
  amount: number | null;
  currency: string | null;
  created_ms: number;
  /** Refunds: the key of the charge refunded. */
  charge_key?: string;
  /** Refunds: the refund's result. */
  refund?: RefundResult;
}

/** The ledger across accounts (gsi3), newest last; only the local runtime's page lists it. */
export const LEDGER_PARTITION = 'test-gateway#charges';

const keyOf = (chargeKey: string) => ({ pk: `test-gateway#${chargeKey}`, sk: 'charge' });

const charges = defineEntity<GatewayChargeRecord>({ name: 'gateway charge', collection: 'gateway-charges', scope: 'account', idField: 'key',
  indexes: { gsi3: 'the test gateway ledger, for the local runtime page' },
  keyOf: (charge) => keyOf(charge.key),
  indexKeys: (charge) => ({ gsi3: byDate(LEDGER_PARTITION, charge.created_ms, charge.key) }) });

/** The ledger entry of `chargeKey`, if any. */
export async function findCharge(chargeKey: string): Promise<GatewayChargeRecord | undefined> {
  const found = await db().send(new GetCommand({ TableName: table(), Key: keyOf(chargeKey), ConsistentRead: true }));
  return found.Item && charges.recordOf(found.Item);
}

/**
 * Records `entry` for its key unless the key has one already; answers the entry that stands
 * (the new one, or the earlier charge or void).
 */
export async function recordOnce(chargeKey: string, entry: Omit<GatewayChargeRecord, 'key'>): Promise<GatewayChargeRecord> {
  const record: GatewayChargeRecord = { key: chargeKey, ...entry };
  try {
    await writeOne(charges.putEntry(record, { condition: IS_NEW, name: 'gateway-charge.record' }));
    return record;
  } catch (error) {
    // The key was charged or voided first: that entry stands.
    const standing = error instanceof TransactionRejectedError ? await findCharge(chargeKey) : undefined;
    if (!standing) throw error;
    return standing;
  }
}

/** Every ledger entry in charge order (local runtime page and tests). */
export async function listCharges(): Promise<GatewayChargeRecord[]> {
  return charges.query('gsi3', { KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': LEDGER_PARTITION } });
}
