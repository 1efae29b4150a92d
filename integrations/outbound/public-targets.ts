import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
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
