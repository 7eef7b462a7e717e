/**
 * Where a webhook may be delivered: no server-side request forgery. An address
 * is refused when it is not http or https, holds credentials, or its host is
 * (or resolves to) an address inside a network: loopback, private, link-local
 * (the cloud metadata service at 169.254.169.254 among them), unique-local,
 * carrier-grade NAT, unspecified, multicast, broadcast or reserved, IPv4 and
 * IPv6, IPv4-mapped IPv6 included. The WHATWG URL parser has already read the
 * decimal, octal and hexadecimal forms of an IPv4 host (`2130706433`, `0177.1`)
 * as the address they are. ipaddr.js names the ranges (RFC 6890's registries).
 */
import ipaddr from 'ipaddr.js';

/** The ranges a delivery may reach: the public internet. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Why an address is refused (`is a loopback address`), or undefined when it is public. */
export function addressRefusal(address: string, { allowPrivate = false } = {}): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (PUBLIC_RANGES.has(range)) return undefined;
  // A development or test setup (WEBHOOK_ALLOW_PRIVATE) may deliver to its own machine and network.
  if (allowPrivate && ['loopback', 'private', 'uniqueLocal', 'linkLocal', 'carrierGradeNat'].includes(range)) return undefined;
  return `the host ${parsed.toString()} is ${RANGE_NAMES[range] ?? `a ${range} address`}, which the service does not deliver to`;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  unspecified: 'the unspecified address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

/** A URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why a webhook URL is refused on its face (its scheme, credentials, a literal address), or
 * undefined; a host name is checked where it resolves (`resolvedRefusal`), at creation and
 * again on each connection.
 */
export function urlRefusal(text: string, options: { allowPrivate?: boolean } = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be http or https';
  if (url.username !== '' || url.password !== '') return 'must not hold credentials (user:password@)';
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return addressRefusal(host, options);
  if (host === 'localhost' || host.endsWith('.localhost')) return options.allowPrivate ? undefined : `the host ${host} is this machine`;
  return undefined;
}

/** Why the addresses a host resolved to are refused: the first that is not public. */
export function resolvedRefusal(host: string, addresses: readonly string[], options: { allowPrivate?: boolean } = {}): string | undefined {
  if (addresses.length === 0) return `the host ${host} resolves to no address`;
  for (const address of addresses) {
    const refusal = addressRefusal(address, options);
    if (refusal) return `the host ${host} resolves to ${address}: ${refusal.replace(/^the host \S+ is /, '')}`;
  }
  return undefined;
}
