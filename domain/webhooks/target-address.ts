import net from 'node:net';

/**
 * Which webhook targets are allowed. In production only https URLs whose host resolves to
 * public addresses: no loopback, private, link-local (cloud metadata lives at 169.254.169.254),
 * carrier-grade NAT, multicast or unspecified addresses. Checked at creation and again at every
 * delivery, on the address actually connected to (DNS rebinding).
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
  const literal = hostAsIp(url.hostname);
  if (literal && !policy.allowPrivateTargets && !isPublicAddress(literal)) {
    throw new TargetNotAllowedError(`url points at a non-public address (${literal}).`);
  }
  if (!policy.allowPrivateTargets && /^(localhost|.*\.localhost|.*\.local|.*\.internal)$/i.test(url.hostname)) {
    throw new TargetNotAllowedError('url points at a local host name.');
  }
  return url;
}

function hostAsIp(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : null;
}

export function isPublicAddress(address: string): boolean {
  if (net.isIPv4(address)) return isPublicIpv4(address);
  if (net.isIPv6(address)) return isPublicIpv6(address);
  return false;
}

function isPublicIpv4(address: string): boolean {
  const [a, b] = address.split('.').map(Number);
  if (a === 0 || a === 10 || a === 127) return false;
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 192 && b === 0) return false; // IETF protocol assignments, incl. 192.0.0.0/24
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a >= 224) return false; // multicast, reserved, broadcast
  return true;
}

function isPublicIpv6(address: string): boolean {
  const normalized = address.toLowerCase();
  if (normalized === '::' || normalized === '::1') return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(normalized);
  if (mapped) return isPublicIpv4(mapped[1]);
  const firstGroup = Number.parseInt(normalized.split(':')[0] || '0', 16);
  if ((firstGroup & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((firstGroup & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((firstGroup & 0xff00) === 0xff00) return false; // multicast
  if (normalized.startsWith('64:ff9b:') || normalized.startsWith('2001:db8:')) return false;
  return true;
}
