/**
 * Limited-token bindings against the real local DynamoDB emulator: twenty fit, the 21st
 * transaction is cancelled by the binding's own condition (so whatever it was written with
 * never happens), and a resource counts once.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../shared/platform/adapters/system-clock';
import { authenticate, forgetToken } from '../../../shared/modules/identity/authenticate';
import { issueToken } from '../../../shared/modules/identity/auths';
import { assertBindingCapacity, bindingWrite, bindingWritten, MAX_BINDINGS } from '../../../shared/modules/identity/bindings';
import { db } from '../../../shared/store/client';
import { hashToken } from '../../../shared/core/access/tokens';
import { Harness, TABLE, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { config } from '../../../shared/core/config';

const harness = new Harness();

useEmulatedTable(harness);

/** Writes a stand-in record and the binding in one transaction, as cart creation will. */
async function createBound(token: string, id: string): Promise<void> {
  const principal = await authenticate(token, systemClock, config().rateLimits.perToken);
  assertBindingCapacity(principal, `carts/${id}`);
  const binding = bindingWrite(principal, `carts/${id}`);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: TABLE, Item: { pk: `cart#${id}`, sk: 'record' } } }, ...(binding ? [binding] : [])],
    }),
  );
  bindingWritten(principal);
}

describe('bindings', () => {
  it('allows twenty, refuses the 21st before any effect, and counts a resource once', async () => {
    const { token } = await issueToken({ accountId: 'ACCT', mode: 'live', kind: 'limited' }, systemClock);
    for (let i = 0; i < MAX_BINDINGS; i++) await createBound(token, `C${i}`);
    const principal = await authenticate(token, systemClock, config().rateLimits.perToken);
    expect(principal.record.bindings).toHaveLength(MAX_BINDINGS);
    expect(() => assertBindingCapacity(principal, 'carts/C21')).toThrowError(expect.objectContaining({ status: 422, code: 'binding_limit_exceeded', meta: { limit: 20 } }));
    // Already bound: no new binding needed, so no refusal either.
    expect(() => assertBindingCapacity(principal, 'carts/C3')).not.toThrow();
    expect(bindingWrite(principal, 'carts/C3')).toBeUndefined();
  });

  it('lets the condition decide when two requests race for the last slot', async () => {
    const { token } = await issueToken({ accountId: 'ACCT', mode: 'live', kind: 'limited' }, systemClock);
    for (let i = 0; i < MAX_BINDINGS - 1; i++) await createBound(token, `R${i}`);
    const principal = await authenticate(token, systemClock, config().rateLimits.perToken);
    const writes = ['carts/X', 'carts/Y'].map((path) => bindingWrite(principal, path)!);
    const results = await Promise.allSettled(
      writes.map((write, index) =>
        db().send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: TABLE, Item: { pk: `cart#race${index}`, sk: 'record' } } }, write] })),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(TransactionCanceledException);
    forgetToken(hashToken(token));
    expect((await authenticate(token, systemClock, config().rateLimits.perToken)).record.bindings).toHaveLength(MAX_BINDINGS);
  });

  it('binds only limited tokens', async () => {
    const { token } = await issueToken({ accountId: 'ACCT', mode: 'live', kind: 'secret', permissions: [] }, systemClock);
    const principal = await authenticate(token, systemClock, config().rateLimits.perToken);
    expect(bindingWrite(principal, 'carts/Z')).toBeUndefined();
  });
});
