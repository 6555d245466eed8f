/**
 * The outbound HTTP adapter (events.md §3 address guard, §5 timeout): every request the
 * platform makes to a merchant's server goes through here. The host name is resolved once,
 * every resolved address is checked, and the connection is made to the checked address (the
 * socket's `lookup` answers it), so DNS rebinding cannot slip a private address in between.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { OutboundHttp, OutboundRequest, OutboundResponse } from './ports';

/** Largest response body kept (bytes); the rest is dropped. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** Which destination addresses are refused. */
export interface AddressPolicy {
  /** Locally, developers receive on localhost: loopback is allowed there, never in the cloud. */
  allowLoopback: boolean;
}

/** Whether the platform may connect to `address` under `policy`. */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'loopback') return policy.allowLoopback;
  return range === 'unicast';
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

/** Outbound HTTP with the address guard and a timeout (30 s unless the request says otherwise). */
export function guardedHttp(policy: AddressPolicy): OutboundHttp {
  const lookup = guardedLookup(policy);
  return {
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
        const outgoing = send(url, { method: request.method, headers: request.headers, lookup, timeout: timeoutMs }, (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          });
          response.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
            resolve({ ok: true, status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', (error) => resolve({ ok: false, reason: 'network', message: error.message }));
        });
        outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_CARTWHEEL' })));
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ETIMEDOUT_CARTWHEEL') resolve({ ok: false, reason: 'timeout', message: `No answer within ${timeoutMs} ms` });
          else if (error.code === 'EREFUSEDADDRESS') resolve({ ok: false, reason: 'refused_address', message: error.message });
          else resolve({ ok: false, reason: 'network', message: error.message });
        });
        outgoing.end(request.body);
      });
    },
  };
}
