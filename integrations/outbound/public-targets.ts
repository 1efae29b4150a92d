import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { isPublicAddress, nonPublicHost } from '../../domain/webhooks/target-address';

/**
 * Outbound requests to client-controlled URLs (webhooks, in-house ERPs) may only reach public
 * addresses in production. The check runs on the address actually connected to, so a name that
 * resolves differently later (DNS rebinding) is caught too.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((entry) => !isPublicAddress(entry.address));
    if (blocked) {
      return callback(Object.assign(new Error(`${hostname} resolves to a non-public address (${blocked.address})`), { code: 'ETARGETBLOCKED' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return callback(null, list[0].address, list[0].family);
  });
};

/**
 * Node skips the lookup hook for IP literals: callers judge a URL's literal host (and local names
 * such as `localhost.`) with nonPublicHost before connecting.
 */
export { nonPublicHost };

export function loopbackOnly(): boolean {
  return process.env.OUTBOUND_ALLOW_ONLY_LOOPBACK === 'true';
}
function isLoopback(address: string): boolean {
  return net.isIPv4(address) ? address.startsWith('127.') : /^(::1|::ffff:127\.[0-9.]+)$/i.test(address);
}
const loopbackOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || list.some((entry) => !isLoopback(entry.address))) {
      return callback(Object.assign(new Error(`${hostname} is not a loopback address (OUTBOUND_ALLOW_ONLY_LOOPBACK)`), { code: 'ETARGETBLOCKED' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return callback(null, list[0].address, list[0].family);
  });
};
export function outboundLookup(allowPrivateTargets: boolean): LookupFunction | undefined {
  if (loopbackOnly()) return loopbackOnlyLookup;
  return allowPrivateTargets ? undefined : publicOnlyLookup;
}
export function blockedTarget(url: URL, allowPrivateTargets: boolean): string | null {
  if (loopbackOnly()) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return !net.isIP(host) || isLoopback(host) ? null : `${host} (not loopback: OUTBOUND_ALLOW_ONLY_LOOPBACK)`;
  }
  return allowPrivateTargets ? null : nonPublicHost(url);
}
export function allowedUnderLoopbackOnly(url: string): boolean {
  if (!loopbackOnly()) return true;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (net.isIP(host) !== 0 && isLoopback(host));
}
