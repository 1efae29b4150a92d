/**
 * URL hosts that lead to loopback, private, link-local, translated or otherwise non-public
 * addresses, written every way the URL parser accepts (issue 10). Shared by the registration
 * and connect-time tests of every outbound URL a tenant can set.
 */
export const NON_PUBLIC_HOSTS: readonly string[] = [
  // IPv4-mapped IPv6, however written (the URL parser compresses them to [::ffff:7f00:1])
  '[::ffff:127.0.0.1]',
  '[0:0:0:0:0:ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:169.254.169.254]',
  // IPv4-compatible IPv6, SIIT
  '[::127.0.0.1]',
  '[::a00:1]',
  '[::ffff:0:7f00:1]',
  // NAT64 (well-known and local-use prefixes), 6to4, Teredo
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::a9fe:a9fe]',
  '[64:ff9b:1::a00:1]',
  '[2002:7f00:1::]',
  '[2002:a9fe:a9fe::1]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  // IPv6 special ranges
  '[::1]',
  '[::]',
  '[fd12:3456::1]',
  '[fc00::1]',
  '[fe80::1]',
  '[fec0::1]',
  '[ff02::1]',
  '[2001:db8::1]',
  // IPv4 in every form the URL parser normalises (decimal, octal, hex, short, trailing dot)
  '0.0.0.0',
  '0',
  '127.1',
  '2130706433',
  '0x7f000001',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '017700000001',
  '127.0.0.1.',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '192.0.0.8',
  '198.18.0.1',
  '224.0.0.1',
  '240.0.0.1',
  '255.255.255.255',
  // local names, with and without trailing dots
  'localhost',
  'localhost.',
  'localhost..',
  'LOCALHOST.',
  'api.localhost.',
  'metadata.google.internal.',
  'printer.local.',
];

/** Hosts that must keep working (public unicast, an IPv4-mapped public address, a FQDN with its root dot). */
export const PUBLIC_HOSTS: readonly string[] = ['8.8.8.8', '[2800:3f0:4005::200e]', '[::ffff:8.8.8.8]', 'hooks.example.com', 'hooks.example.com.'];
