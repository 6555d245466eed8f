/** The `Idempotency-Key` step (conventions.md §19): runs the action at most once per (token, key). */
import type { SecretsPort } from '../../platform/ports';
import { checkIdempotencyKey, runIdempotent } from '../idempotency';
import { rawFingerprint } from '../body/raw';
import { errorResult } from '../response';
import { uploadFingerprint } from '../upload-fingerprint';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

/** What the idempotency step needs: the port that seals stored answers holding a secret. */
export interface IdempotencyOptions {
  secrets: SecretsPort;
}

/**
 * `Idempotency-Key` on authenticated POSTs (conventions.md §19): validates the key, then runs
 * the action at most once per (token, key), replaying the stored answer afterwards.
 */
export function idempotency(options: IdempotencyOptions): ApiMiddleware {
  const { secrets } = options;
  return {
    before: (request: ApiRequest) => {
      const { event, context } = request;
      const state = stateOf(event);
      const method = state.route?.method ?? event.requestContext.http.method;
      const header = event.headers?.['idempotency-key'];
      const principal = state.principal;
      if (method !== 'POST' || header === undefined || !principal) return;
      const key = checkIdempotencyKey(header);
      state.around.push((execute) =>
        runIdempotent({
          tokenHash: principal.tokenHash,
          key,
          method,
          path: event.rawPath,
          // An upload is compared by its content (boundary aside), a raw body by its type and bytes, as parsed bodies are.
          body: state.body ?? rawFingerprint(state.raw) ?? uploadFingerprint(event),
          requestId: state.requestId,
          lambdaContext: context,
          secrets,
          execute,
          errorResult: (error) => errorResult(error, state.requestId),
        }),
      );
    },
  };
}
