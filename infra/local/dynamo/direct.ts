/**
 * dynalite's item operations called directly: its own type checks, validations and actions,
 * without its HTTP request listener around them (issue 12: the local store made cheap).
 *
 * For a well-formed request the listener adds only wire work: it parses the URL and the
 * Authorization header, draws a 52-character request id from `crypto.randomBytes`, and answers
 * JSON text that the emulator's own calls (every item of a transaction, the reads behind a
 * failed condition) parse straight back. That was about 4 % of the runtime's CPU per checkout
 * (a CPU profile of 800 checkouts). Here an item operation runs the same three dynalite steps in the same order on the
 * request's data; a failure carries dynalite's error body and status unchanged. Table
 * operations and anything unusual still go through the listener (see `DynaliteInvoker`).
 */
import { createRequire } from 'node:module';
import type { DynaliteStore } from 'dynalite/db';

/** The operations called directly: the ones on items, which every checkout makes. */
export const directOperations: ReadonlySet<string> = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem']);

/** An error dynalite answers with (`statusCode` and the JSON `body` it would send). */
interface AnsweredError {
  statusCode: number;
  body: Record<string, unknown>;
}

type ActionCallback = (error: (Error & Partial<AnsweredError>) | null, data?: unknown) => void;
type Action = (store: DynaliteStore, data: Record<string, unknown>, callback: ActionCallback) => void;
interface ActionValidation {
  types: Record<string, unknown>;
  custom?: unknown;
}
interface Validations {
  checkTypes(data: Record<string, unknown>, types: Record<string, unknown>): Record<string, unknown>;
  checkValidations(data: Record<string, unknown>, types: Record<string, unknown>, custom: unknown, store: DynaliteStore): void;
}

/** What a direct call ends in: dynalite's answer, or the error it would have sent. */
export type DirectOutcome = { ok: true; data: unknown } | { ok: false; status: number; body: Record<string, unknown> };

// The same module instances dynalite's listener uses (one `require` from dynalite's folder).
const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const validations = requireFromDynalite('./validations') as Validations;

function answered(error: unknown): error is AnsweredError {
  return typeof error === 'object' && error !== null && typeof (error as AnsweredError).statusCode === 'number' && typeof (error as AnsweredError).body === 'object';
}

/** dynalite's item operations on one store, called as its listener calls them. */
export class DirectDynalite {
  private readonly steps = new Map<string, { validation: ActionValidation; action: Action }>();

  constructor(private readonly store: DynaliteStore) {
    for (const operation of directOperations) {
      const name = operation[0]!.toLowerCase() + operation.slice(1);
      this.steps.set(operation, {
        validation: requireFromDynalite(`./validations/${name}`) as ActionValidation,
        action: requireFromDynalite(`./actions/${name}`) as Action,
      });
    }
  }

  /**
   * Runs `operation` (one of `directOperations`) on `data`, a request body as parsed from JSON
   * (dynalite's type check may drop its unknown or null top-level members). Rejects only where
   * dynalite's listener would have thrown.
   */
  run(operation: string, data: Record<string, unknown>): Promise<DirectOutcome> {
    const steps = this.steps.get(operation);
    if (!steps) return Promise.reject(new Error(`${operation} is not called directly`));
    let checked: Record<string, unknown>;
    try {
      checked = validations.checkTypes(data, steps.validation.types);
      validations.checkValidations(checked, steps.validation.types, steps.validation.custom, this.store);
    } catch (error) {
      if (answered(error)) return Promise.resolve({ ok: false, status: error.statusCode, body: error.body });
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      steps.action(this.store, checked, (error, result) => {
        if (answered(error)) resolve({ ok: false, status: error.statusCode, body: error.body });
        else if (error) reject(error);
        else resolve({ ok: true, data: result });
      });
    });
  }
}
