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
      // The address is not named: the message becomes the delivery's last_error, which the tenant
      // reads, and would tell them what an internal name (or a rebound one) resolves to.
      return callback(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ETARGETBLOCKED' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return callback(null, list[0].address, list[0].family);
  });
};

/** The 400 message of a URL refused by resolvesToNonPublic; it never names the addresses found. */
export const RESOLVES_TO_NON_PUBLIC = (field: string) => `${field} points at a host name that resolves to a non-public address.`;

/** How long registration waits for a host name to resolve before leaving it to the connect-time check. */
const REGISTRATION_LOOKUP_MS = 3000;

/**
 * Registration of a client URL where only public targets are allowed: whether its host name
 * resolves, now, to any non-public address (an internal name such as `vm`, `postgres`,
 * `redis.prod.svc.cluster.local`, or a public-looking name pointed at 10.0.0.5). Such a URL was
 * accepted (201) and then failed every delivery at the connect-time check; it is refused at once.
 * A name that does not resolve (yet), or not within 3 s, is accepted: the connect-time lookup
 * (publicOnlyLookup) still judges every connection. IP literals are nonPublicHost's.
 */
export function resolvesToNonPublic(url: URL): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (host === '' || net.isIP(host) !== 0) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), REGISTRATION_LOOKUP_MS);
    timer.unref();
    dns.lookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(!error && addresses.some((entry) => !isPublicAddress(entry.address)));
    });
  });
}

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
