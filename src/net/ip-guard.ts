import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Only plain global unicast passes. ipaddr.js names every special-purpose range (IANA's
 * registries): for IPv4 loopback, private, link-local (cloud metadata at 169.254.169.254
 * included), CGNAT, multicast, broadcast, unspecified (0/8), reserved and documentation; for
 * IPv6 loopback, unspecified, link-local, site-local, unique local (EC2's metadata
 * fd00:ec2::254 included), multicast, discard, documentation and the IETF protocol assignments
 * (2001::/23). A range it learns to name later is refused too.
 */
const isPlainUnicast = (address: IPv4 | IPv6): boolean => address.range() === 'unicast';

/** IPv4-compatible (RFC 4291 §2.5.5.1): deprecated, still routed by some stacks; ipaddr.js calls it unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** The NAT64 well-known prefix (RFC 6052 §2.1); ipaddr.js names it `rfc6052` with the local-use /48 of RFC 8215. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const ipv4Of = (bytes: number[]): IPv4 => new ipaddr.IPv4(bytes);

/**
 * RFC 6052 §2.2 layout for a /48 prefix: IPv4 bytes at 6-7 and 9-10. Byte 8 (the "u" octet)
 * and the suffix (bytes 11-15) must be zero. A translator may use a longer RFC 6052 prefix
 * inside the /48 (a /96, say) and the service cannot know which, so only the /48 layout, the
 * size RFC 8215 allocates, is read: any other address there yields null and is refused, since
 * it may hide a forbidden IPv4 address in another layout (64:ff9b:1::7f00:1).
 */
function ipv4InNat64Slash48(bytes: number[]): IPv4 | null {
  if (bytes[8] !== 0 || bytes.slice(11).some((byte) => byte !== 0)) return null;
  return ipv4Of([bytes[6], bytes[7], bytes[9], bytes[10]]);
}

/**
 * The IPv4 address an IPv6 form carries and the traffic ends up at; it is judged instead, so a
 * public one stays reachable (DNS64 answers 64:ff9b:: addresses for IPv4-only hosts).
 * Undefined when the form carries none; null when it carries one in a layout not read.
 *
 * 6to4 (2002::/16, IPv4 in bytes 2-5) and Teredo (2001::/32, server IPv4 in bytes 4-7, client
 * IPv4 inverted in bytes 12-15) are not read: they are refused whole, whatever IPv4 address
 * is inside, since that address is a tunnel endpoint reached through relays the service does
 * not control (6to4's anycast relays are deprecated by RFC 7526), and a server never needs either.
 */
function carriedIpv4(address: IPv6): IPv4 | null | undefined {
  const bytes = address.toByteArray();
  const last32Bits = () => ipv4Of(bytes.slice(12));
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:0:0/96, RFC 4291 §2.5.5.2
    case 'rfc6145': // ::ffff:0:0:0/96, IPv4-translated (SIIT), RFC 2765 §2.1
      return last32Bits();
    case 'rfc6052': // NAT64: 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215)
      return address.match(NAT64_WELL_KNOWN) ? last32Bits() : ipv4InNat64Slash48(bytes);
  }
  // Also :: and ::1 (unspecified, loopback), carrying 0.0.0.0 and 0.0.0.1: refused as 0/8.
  return address.match(IPV4_COMPATIBLE) ? last32Bits() : undefined;
}

function isBlockedIpv6(address: IPv6): boolean {
  const ipv4 = carriedIpv4(address);
  if (ipv4 === undefined) return !isPlainUnicast(address);
  return ipv4 === null || !isPlainUnicast(ipv4);
}

/**
 * True when an IP address lies in a range user URLs may not reach. Node's parser (the one
 * connections use) decides what is an address, in the strict forms it accepts (dotted quads
 * without leading zeros, IPv6 text with an optional zone id); anything else is refused. A zone
 * id (RFC 4007 §11, `%eth0`) only picks the link of a scoped address, which is refused
 * whatever the link, and the kernel ignores it for any other address.
 */
export function isBlockedAddress(address: string): boolean {
  try {
    const family = isIP(address);
    if (family === 4)
      return !ipaddr.IPv4.isValidFourPartDecimal(address) || !isPlainUnicast(ipaddr.IPv4.parse(address));
    if (family === 6) return isBlockedIpv6(ipaddr.IPv6.parse(address));
  } catch {
    // Node took it for an address and ipaddr.js did not: refused, as anything unclear is.
  }
  return true;
}

/**
 * Cloud metadata services: an instance's credentials and settings, what an SSRF is after. All of
 * IPv4 link-local 169.254/16 (169.254.169.254 of AWS, Google Cloud, Azure, Oracle, OpenStack,
 * DigitalOcean and Hetzner; AWS ECS's 169.254.170.2 and EKS's 169.254.170.23; Tencent's
 * 169.254.0.23), Alibaba's 100.100.100.200, Azure's WireServer 168.63.129.16 (a public address,
 * answered only from inside Azure), Oracle's 192.0.0.192; AWS's fd00:ec2::/32 (the IMDS at
 * fd00:ec2::254, EKS at fd00:ec2::23) and Google's fd20:ce::254.
 */
const METADATA_V4 = ['169.254.0.0/16', '100.100.100.200/32', '168.63.129.16/32', '192.0.0.192/32'].map((cidr) =>
  ipaddr.IPv4.parseCIDR(cidr),
);
const METADATA_V6 = ['fd00:ec2::/32', 'fd20:ce::254/128'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * True when an address is a cloud metadata service's (above), however written: refused even where
 * private addresses are allowed. IPv6 forms are judged by the IPv4 address they carry, as by
 * isBlockedAddress; one in a NAT64 layout not read may hide one, and counts as one. Anything
 * that is no address is not (isBlockedAddress refuses it).
 */
export function isMetadataAddress(address: string): boolean {
  try {
    const family = isIP(address);
    if (family === 4) return METADATA_V4.some((range) => ipaddr.IPv4.parse(address).match(range));
    if (family !== 6) return false;
    const parsed = ipaddr.IPv6.parse(address);
    const ipv4 = carriedIpv4(parsed);
    if (ipv4 === null) return true;
    return ipv4 ? METADATA_V4.some((range) => ipv4.match(range)) : METADATA_V6.some((range) => parsed.match(range));
  } catch {
    return false;
  }
}
