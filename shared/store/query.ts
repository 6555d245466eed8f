/** Paging through DynamoDB Query results. */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';

/** Runs a Query page after page until it is exhausted or `max` items were read. */
export async function queryItems(input: QueryCommandInput, max = Number.POSITIVE_INFINITY): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey = input.ExclusiveStartKey;
  do {
    const remaining = max - items.length;
    const page = await db().send(
      new QueryCommand({
        ...input,
        // Limit counts items read before a FilterExpression, so only unfiltered reads may shrink it.
        ...(Number.isFinite(remaining) && !input.FilterExpression ? { Limit: Math.min(input.Limit ?? 1000, remaining) } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < max);
  return items.slice(0, max);
}

/**
 * A FilterExpression matching every defined property exactly (list filters such as `status`),
 * or undefined when none is defined.
 *
 * @example equalityFilter({ status: 'retry', type: undefined }) // { expression: '#f_status = :f_status', ... }
 */
export function equalityFilter(filters: Record<string, string | undefined>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    conditions.push(`#f_${name} = :f_${name}`);
    names[`#f_${name}`] = name;
    values[`:f_${name}`] = value;
  }
  return conditions.length ? { expression: conditions.join(' AND '), names, values } : undefined;
}
