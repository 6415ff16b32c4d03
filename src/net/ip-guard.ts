import { isIP } from 'node:net';

/** A CIDR range. Addresses are numbers here: 32 bits for IPv4, 128 for IPv6. */
interface Range {
  base: bigint;
  prefix: number;
}

const IPV4_BITS = 32;
const IPV6_BITS = 128;

/** Parses a dotted quad: four decimal octets without leading zeros (what inet_pton and Node accept). */
function parseIpv4(text: string): bigint | null {
  const octets = text.split('.');
  if (octets.length !== 4) return null;
  let value = 0n;
  for (const octet of octets) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(octet) || Number(octet) > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

/** The 16-bit groups of one side of `::`; a dotted quad may stand for the last two (RFC 4291 §2.2, form 3). */
function parseGroups(text: string, mayEndInIpv4: boolean): number[] | null {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(Number.parseInt(part, 16));
      continue;
    }
    const ipv4 = mayEndInIpv4 && index === parts.length - 1 ? parseIpv4(part) : null;
    if (ipv4 === null) return null;
    groups.push(Number(ipv4 >> 16n), Number(ipv4 & 0xffffn));
  }
  return groups;
}

/**
 * Parses IPv6 text (RFC 4291 §2.2): hex groups in any case, at most one `::` standing for one
 * or more zero groups, an optional trailing dotted quad. A zone id (RFC 4007 §11, `%eth0`) is
 * dropped: it only picks the link of a scoped address (link-local, multicast), which is
 * blocked whatever the link, and the kernel ignores it for any other address.
 */
function parseIpv6(text: string): bigint | null {
  const [address, zone, ...extra] = text.split('%');
  if (zone === '' || extra.length > 0) return null;
  const sides = address.split('::');
  if (sides.length > 2) return null;
  const compressed = sides.length === 2;
  const head = parseGroups(sides[0], !compressed);
  const tail = compressed ? parseGroups(sides[1], true) : [];
  if (!head || !tail) return null;
  const zeros = 8 - head.length - tail.length;
  if (compressed ? zeros < 1 : zeros !== 0) return null;
  return [...head, ...new Array<number>(zeros).fill(0), ...tail].reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function range(text: string, prefix: number): Range {
  const base = parseIpv4(text) ?? parseIpv6(text);
  if (base === null) throw new Error(`not an address: ${text}`);
  return { base, prefix };
}

function inRange(address: bigint, bits: number, { base, prefix }: Range): boolean {
  const hostBits = BigInt(bits - prefix);
  return address >> hostBits === base >> hostBits;
}

/**
 * IPv4 addresses a user URL must never reach: loopback, private, link-local (cloud metadata at
 * 169.254.169.254 included), CGNAT, multicast, unspecified, reserved and documentation ranges.
 */
const BLOCKED_IPV4: Range[] = [
  range('0.0.0.0', 8),
  range('10.0.0.0', 8),
  range('100.64.0.0', 10),
  range('127.0.0.0', 8),
  range('169.254.0.0', 16),
  range('172.16.0.0', 12),
  range('192.0.0.0', 24),
  range('192.0.2.0', 24),
  range('192.88.99.0', 24),
  range('192.168.0.0', 16),
  range('198.18.0.0', 15),
  range('198.51.100.0', 24),
  range('203.0.113.0', 24),
  range('224.0.0.0', 4),
  range('240.0.0.0', 4),
];

/**
 * Transition tunnels, blocked whole rather than judged by the IPv4 address inside: that address
 * is a tunnel endpoint reached through relays the service does not control, and a server never
 * needs either. 6to4 (RFC 3056, IPv4 in bits 16-47; its anycast relays deprecated by RFC 7526)
 * and Teredo (RFC 4380, server IPv4 in bits 32-63, client IPv4 inverted in bits 96-127).
 */
const TRANSITION_TUNNELS: Range[] = [range('2002::', 16), range('2001::', 32)];

/** IPv6 addresses a user URL must never reach, whatever they carry; then IPv4 inside IPv6 is judged (below). */
const BLOCKED_IPV6: Range[] = [
  range('::', 128),
  range('::1', 128),
  range('100::', 64), // discard-only
  range('2001::', 23), // IETF protocol assignments
  range('2001:db8::', 32), // documentation
  range('fc00::', 7), // unique local, EC2's metadata fd00:ec2::254 included
  range('fe80::', 10), // link-local
  range('fec0::', 10), // site-local
  range('ff00::', 8), // multicast
  ...TRANSITION_TUNNELS,
];

const last32Bits = (address: bigint) => address & 0xffff_ffffn;

/**
 * RFC 6052 §2.2 layout for a /48 prefix: IPv4 bits at 48-63 and 72-87. Bits 64-71 (the "u"
 * octet) and the suffix (88-127) must be zero. A translator may use a longer RFC 6052 prefix
 * inside the /48 (a /96, say) and the service cannot know which, so only the /48 layout, the
 * size RFC 8215 allocates, is read: any other address there yields null and is refused, since
 * it may hide a forbidden IPv4 address in another layout (64:ff9b:1::7f00:1).
 */
function ipv4InNat64Slash48(address: bigint): bigint | null {
  const uOctet = (address >> 56n) & 0xffn;
  const suffix = address & ((1n << 40n) - 1n);
  if (uOctet !== 0n || suffix !== 0n) return null;
  return (((address >> 64n) & 0xffffn) << 16n) | ((address >> 40n) & 0xffffn);
}

/**
 * IPv6 forms that carry an IPv4 address the traffic ends up at: judged by that IPv4 address,
 * so a public one stays reachable (DNS64 answers 64:ff9b:: addresses for IPv4-only hosts).
 */
const IPV4_CARRIERS: Array<{ range: Range; ipv4(address: bigint): bigint | null }> = [
  { range: range('::ffff:0:0', 96), ipv4: last32Bits }, // IPv4-mapped, RFC 4291 §2.5.5.2
  { range: range('::ffff:0:0:0', 96), ipv4: last32Bits }, // IPv4-translated (SIIT), RFC 2765 §2.1
  { range: range('::', 96), ipv4: last32Bits }, // IPv4-compatible, RFC 4291 §2.5.5.1 (deprecated, still routed by some stacks)
  { range: range('64:ff9b::', 96), ipv4: last32Bits }, // NAT64 well-known prefix, RFC 6052 §2.1
  { range: range('64:ff9b:1::', 48), ipv4: ipv4InNat64Slash48 }, // NAT64 local-use prefix, RFC 8215
];

function isBlockedIpv4(address: bigint): boolean {
  return BLOCKED_IPV4.some((blocked) => inRange(address, IPV4_BITS, blocked));
}

function isBlockedIpv6(address: bigint): boolean {
  if (BLOCKED_IPV6.some((blocked) => inRange(address, IPV6_BITS, blocked))) return true;
  const carrier = IPV4_CARRIERS.find((form) => inRange(address, IPV6_BITS, form.range));
  if (!carrier) return false;
  const ipv4 = carrier.ipv4(address);
  return ipv4 === null || isBlockedIpv4(ipv4);
}

/**
 * True when an IP address lies in a range user URLs may not reach. Anything that is not an
 * address, to Node or to this parser (which must agree), is refused.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const ipv4 = parseIpv4(address);
    return ipv4 === null || isBlockedIpv4(ipv4);
  }
  if (family === 6) {
    const ipv6 = parseIpv6(address);
    return ipv6 === null || isBlockedIpv6(ipv6);
  }
  return true;
}
