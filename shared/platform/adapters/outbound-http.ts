/**
 * The outbound HTTP adapter (events.md §3 address guard, §5 timeout): every request the
 * platform makes to a merchant's server goes through here. The host name is resolved once,
 * every resolved address is checked, and the connection is made to the checked address (the
 * socket's `lookup` answers it), so DNS rebinding cannot slip a private address in between.
 */
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Clock, OutboundHttp, OutboundRequest, OutboundResponse } from '../ports';
import { settleWithin } from '../../core/parallel';

/** Largest response body kept (bytes); the rest is dropped. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** Which destination addresses are refused. */
export interface AddressPolicy {
  /** Locally, developers receive on localhost: loopback is allowed there, never in the cloud. */
  allowLoopback: boolean;
}

/** The NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits are an IPv4 address. */
const NAT64_PREFIX = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one the network would reach:
 * IPv4-mapped `::ffff:a.b.c.d` and the NAT64 form `64:ff9b::a.b.c.d`.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_PREFIX)) {
    const parts = address.parts;
    return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  }
  return undefined;
}

/**
 * Whether the platform may connect to `address` under `policy` (events.md §3). Only public
 * unicast passes: everything ipaddr.js names a special range is refused, which covers the
 * contract's list (0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24,
 * 192.168/16, 198.18/15, 224/4, 240/4, `::`, `::1`, fc00::/7, fe80::/10, ff00::/8) and more
 * (documentation, 6to4, Teredo, the local-use NAT64 prefix). IPv4-mapped and NAT64 addresses
 * are judged by the IPv4 address inside; the deprecated IPv4-compatible `::a.b.c.d` is refused.
 */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const inner = embeddedIPv4(v6);
    if (inner) parsed = inner;
    else if (v6.parts.slice(0, 6).every((part) => part === 0) && v6.range() !== 'loopback') return false;
  }
  const range = parsed.range();
  if (range === 'loopback') return policy.allowLoopback;
  return range === 'unicast';
}

/** Resolves a host name to every address it has (A and AAAA); injectable so tests need no network. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** How long a save-time lookup may take before the name counts as unresolved. */
const RESOLVE_TIMEOUT_MS = 3_000;

/** The system resolver (`getaddrinfo`, as the socket would use), bounded in time; a failure answers no addresses. */
export const systemResolver: HostResolver = (hostname) =>
  settleWithin(
    dnsPromises.lookup(hostname, { all: true, verbatim: true }).then(
      (entries) => entries.map((entry) => entry.address),
      () => [],
    ),
    RESOLVE_TIMEOUT_MS,
    [],
  );

/**
 * Whether a destination URL passes the address guard by its host (events.md §3, the save-time
 * check): an address literal is checked as it is; `localhost` and `*.localhost` are loopback
 * whatever DNS says; any other name must resolve only to allowed addresses. A name that does
 * not resolve now passes: the check runs again before every attempt, on the address connected to.
 *
 * @example await destinationAllowed('https://hooks.example.com/x', { allowLoopback: false }) // true
 */
export async function destinationAllowed(url: string, policy: AddressPolicy, resolve: HostResolver = systemResolver): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (ipaddr.isValid(host)) return addressAllowed(host, policy);
  if (host === 'localhost' || host.endsWith('.localhost')) return policy.allowLoopback;
  const addresses = await resolve(host);
  return addresses.every((address) => addressAllowed(address, policy));
}

/** A lookup that refuses disallowed addresses, for the socket to connect to what was checked. */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !addressAllowed(entry.address, policy));
      if (refused || !addresses.length) {
        const denied = Object.assign(new Error(`The address ${refused?.address ?? hostname} is not allowed`), { code: 'EREFUSEDADDRESS' });
        return callback(denied, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Outbound HTTP with the address guard and a timeout (30 s unless the request says otherwise),
 * by the real time and by the platform's `clock`. `resolve` answers the save-time destination
 * check (`allowsDestination`); tests inject one.
 */
export function guardedHttp(policy: AddressPolicy, clock: Clock, resolve: HostResolver = systemResolver): OutboundHttp {
  const lookup = guardedLookup(policy);
  return {
    allowsDestination: (url) => destinationAllowed(url, policy, resolve),
    send(request: OutboundRequest): Promise<OutboundResponse> {
      return new Promise((resolve) => {
        let url: URL;
        try {
          url = new URL(request.url);
        } catch {
          return resolve({ ok: false, reason: 'network', message: 'Invalid URL' });
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return resolve({ ok: false, reason: 'refused_address', message: 'Only http and https are allowed' });
        const literal = url.hostname.replace(/^\[|\]$/g, '');
        if (ipaddr.isValid(literal) && !addressAllowed(literal, policy)) {
          return resolve({ ok: false, reason: 'refused_address', message: `The address ${literal} is not allowed` });
        }
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        const timeoutMs = request.timeoutMs ?? 30_000;
        // The time limit covers the whole exchange (a script trickling bytes does not extend it),
        // by the real clock and by the platform's: the local runtime's manual clock moved past
        // the limit also ends the request, so a timeout can be tested without waiting for it.
        const startedMs = clock.nowMs();
        let deadline: NodeJS.Timeout | undefined;
        let stopWatching = (): void => undefined;
        const finish = (answer: OutboundResponse) => {
          clearTimeout(deadline);
          stopWatching();
          resolve(answer);
        };
        const outgoing = send(url, { method: request.method, headers: request.headers, lookup }, (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          });
          response.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
            finish({ ok: true, status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', (error) => finish({ ok: false, reason: 'network', message: error.message }));
          response.on('aborted', () => outgoing.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
        });
        const expire = () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_CARTWHEEL' }));
        deadline = setTimeout(expire, timeoutMs);
        const unwatch = clock.onMoved?.(() => {
          if (clock.nowMs() - startedMs >= timeoutMs) expire();
        });
        if (unwatch) stopWatching = unwatch;
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ETIMEDOUT_CARTWHEEL') finish({ ok: false, reason: 'timeout', message: `No answer within ${timeoutMs} ms` });
          else if (error.code === 'EREFUSEDADDRESS') finish({ ok: false, reason: 'refused_address', message: error.message });
          else finish({ ok: false, reason: 'network', message: error.message });
        });
        outgoing.end(request.body);
      });
    },
  };
}
