import ipaddr from 'ipaddr.js';

/**
 * Which outbound targets a tenant may set (webhook endpoints, the generic HTTP accounting
 * integration). In production only https URLs whose host is public: addresses are classified by
 * ipaddr.js (a maintained library, not hand-written ranges) and only its `unicast` range is
 * public. IPv4-mapped IPv6 (`::ffff:127.0.0.1`, however written) is judged by the IPv4 address it
 * carries; every other IPv6 form that reaches an IPv4 host through a translator or tunnel
 * (IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`,
 * Teredo `2001::/32`, SIIT) is refused outright. Host names are compared without trailing dots
 * (`localhost.` is `localhost`). Checked at registration and again at every delivery, on the
 * address actually connected to (DNS rebinding): see integrations/outbound/public-targets.ts.
 */
export type TargetPolicy = { allowPrivateTargets: boolean; requireHttps: boolean };

export class TargetNotAllowedError extends Error {}

export function parseWebhookUrl(value: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TargetNotAllowedError('url must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TargetNotAllowedError('url must use http or https.');
  }
  if (policy.requireHttps && url.protocol !== 'https:') throw new TargetNotAllowedError('url must use https.');
  if (url.username || url.password) throw new TargetNotAllowedError('url must not carry credentials.');
  if (url.hash) throw new TargetNotAllowedError('url must not have a fragment.');
  if (value.length > 2048) throw new TargetNotAllowedError('url must be at most 2048 characters.');
  if (!policy.allowPrivateTargets) {
    const reason = nonPublicHost(url);
    if (reason) throw new TargetNotAllowedError(`url points at ${reason}.`);
  }
  return url;
}

/** Names that only ever mean this machine or a private network (RFC 6761, 6762, 8375). */
const LOCAL_NAME = /^(localhost|localhost\.localdomain|.*\.localhost|.*\.local|.*\.localdomain|.*\.internal|.*\.home\.arpa)$/i;

/**
 * Why a URL's host may not be contacted from production, or null when it may (so far: a name
 * is only known to be public once resolved, which the connect-time lookup checks). The URL
 * parser has already normalised decimal, octal and hex IPv4 forms (`http://2130706433/`,
 * `http://0x7f.1/`) to dotted quads and IPv6 to its compressed form.
 */
export function nonPublicHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (host === '') return 'an empty host';
  if (ipaddr.isValid(host)) {
    const range = addressRange(host);
    return range === 'unicast' ? null : `a non-public address (${host}: ${range})`;
  }
  if (LOCAL_NAME.test(host)) return 'a local host name';
  return null;
}

/** IPv6 prefixes ipaddr.js files under `unicast` that still lead to a non-public or translated IPv4 host. */
const EXTRA_IPV6_RANGES: [string, [ipaddr.IPv6, number]][] = [
  ['ipv4Compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['nat64LocalUse', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
];

/**
 * ipaddr.js's name for the range an address is in (`unicast` = public), with IPv4-mapped IPv6
 * unwrapped to the IPv4 range it carries (e.g. `ipv4Mapped:loopback`). Unparseable: `invalid`.
 */
export function addressRange(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'invalid';
  }
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const inner = v6.toIPv4Address().range();
    return inner === 'unicast' ? 'unicast' : `ipv4Mapped:${inner}`;
  }
  const range = v6.range();
  if (range !== 'unicast') return range;
  for (const [name, cidr] of EXTRA_IPV6_RANGES) if (v6.match(cidr)) return name;
  return 'unicast';
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}
