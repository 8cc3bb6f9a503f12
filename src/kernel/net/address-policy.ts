import ipaddr from 'ipaddr.js';

/**
 * Whether an address is on the public internet. Loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, unspecified, reserved and documentation ranges are not, nor are IPv6 forms that embed such an
 * IPv4 address (`::ffff:127.0.0.1`, NAT64, 6to4, Teredo). Unparseable text is not public either.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.range() !== 'unicast') return false;
  }
  return ip.range() === 'unicast';
}
