/** The transport step (conventions.md §2): what the request arrived on, and plain HTTP refused. */
import { TlsRequiredError } from '../errors';
import { transportOf } from '../transport';
import { stateOf, type ApiMiddleware, type ApiRequest } from './state';

/**
 * Reads the transport (scheme, host, client address) and refuses plain HTTP from non-loopback
 * clients (401 tls_required). Forwarded headers count only with `edgeSecret`, the secret of
 * the platform's own edge (the surface's gate holds it; none: no edge is trusted).
 */
export function tlsRequired(options: { edgeSecret: string | undefined }): ApiMiddleware {
  const { edgeSecret } = options;
  return {
    before: (request: ApiRequest) => {
      const transport = transportOf(request.event, edgeSecret);
      stateOf(request.event).transport = transport;
      if (transport.insecure) throw new TlsRequiredError();
    },
  };
}
