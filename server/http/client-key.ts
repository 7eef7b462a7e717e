/**
 * A client, as the service counts it (failed credential checks, open
 * connections): an IPv4 address, or an IPv6 address's /64 network. One host is
 * usually given a whole /64, so counting single IPv6 addresses would let it
 * rotate through 2^64 of them.
 */
import ipaddr from 'ipaddr.js';

/** The IPv4 address, or the IPv6 address's /64; anything that is not an address, as it is. */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 (::ffff:192.0.2.1) counts as the IPv4 address
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}
