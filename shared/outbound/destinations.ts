/**
 * Where a record's signed outbound requests go, checked at save time (events.md §2.1, §3;
 * licenses.md §2.1): an event subscription's `http` destination and a remote license
 * service's URL follow the same rules, so both check them here.
 */
import { InvalidInputError } from '../http/errors';
import type { OutboundHttp } from '../platform/ports';
import { invalid } from '../rest/input';

/** An absolute http(s) URL with a host and without whitespace, or undefined (also for null). */
export function httpUrl(text: string | null): URL | undefined {
  if (text === null || /\s/.test(text)) return undefined;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The address check at save time: a URL whose host is, or resolves to, a blocked address gives
 * 400 `invalid_input` (`destination_not_allowed`) at `property`, saying what may not be sent
 * there. The policy is the outbound port's: the local runtime also allows loopback, the cloud does not.
 *
 * @example await assertDestinationAllowed(settings.destination, ports.http, 'destination', 'notifications');
 */
export async function assertDestinationAllowed(url: string, http: OutboundHttp, property: string, sent: string): Promise<void> {
  if (await http.allowsDestination(url)) return;
  throw new InvalidInputError(`The property ${property} points to an address ${sent} may not be sent to (private, loopback, link-local or reserved).`, {
    property,
    reason: 'destination_not_allowed',
  });
}

/**
 * The custom header rule: a name and a value, or neither (400 `required` on the one missing).
 * `prefix` is where the properties sit in the body (`configuration.` for a license service).
 */
export function checkCustomHeader(name: string | null, value: string | null, prefix = ''): void {
  if (name !== null && value === null) {
    invalid(`${prefix}custom_header_value`, `The property ${prefix}custom_header_value is required when custom_header_name is set.`, 'required');
  }
  if (name === null && value !== null) {
    invalid(`${prefix}custom_header_name`, `The property ${prefix}custom_header_name is required when custom_header_value is set.`, 'required');
  }
}
