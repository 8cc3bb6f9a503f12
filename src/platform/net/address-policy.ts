import ipaddr from 'ipaddr.js';

/**
 * Whether an address is on the public internet. Loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, unspecified, reserved and documentation ranges are not, nor are IPv6 forms that embed such an
 * IPv4 address (`::ffff:127.0.0.1`, `::127.0.0.1`, NAT64, 6to4, Teredo). Unparseable text is not public either.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // IPv4-compatible forms (`::7f00:1`, deprecated but still routed by some stacks) are read as the IPv4 they carry.
    const compatible = v6.parts.slice(0, 6).every((p) => p === 0);
    if (v6.isIPv4MappedAddress() || compatible) ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    else if (v6.range() !== 'unicast') return false;
  }
  return ip.range() === 'unicast';
}
