import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address or CIDR range (`10.0.0.0/8`, `::1`), as `server.trustedProxies` takes them; null when it is neither. */
export function parseProxyRange(text: string): Range | null {
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** An address as one form: IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4) as IPv4. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(text.trim());
  } catch {
    return null;
  }
}

function inRange(address: ipaddr.IPv4 | ipaddr.IPv6, [base, bits]: Range): boolean {
  if (address.kind() !== base.kind()) return false;
  return address.kind() === 'ipv4'
    ? (address as ipaddr.IPv4).match(base as ipaddr.IPv4, bits)
    : (address as ipaddr.IPv6).match(base as ipaddr.IPv6, bits);
}

function trusted(address: string, ranges: readonly Range[]): boolean {
  const parsed = parseAddress(address);
  return parsed !== null && ranges.some((range) => inRange(parsed, range));
}

/**
 * The address of the client behind a request. The socket's peer, unless that peer is a trusted
 * proxy: then `X-Forwarded-For` is read from its right end (each proxy appends the address it
 * saw), skipping hops that are trusted proxies too, and the first hop that is not is the client.
 * Entries left of it were written by the client and are never believed. With no trusted proxies
 * (the default) the header is ignored, so a client cannot name itself anything by sending it.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: readonly string[],
): string {
  const socket = peer ?? 'unknown';
  if (trustedProxies.length === 0 || !forwardedFor) return socket;
  const ranges = trustedProxies.map(parseProxyRange).filter((range): range is Range => range !== null);
  if (!trusted(socket, ranges)) return socket;
  const hops = forwardedFor
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  let client = socket;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (parseAddress(hop) === null) return client; // not an address: the hops before it cannot be trusted either
    client = hop;
    if (!trusted(hop, ranges)) return hop;
  }
  return client;
}
