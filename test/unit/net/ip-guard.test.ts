import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isBlockedAddress, isMetadataAddress } from '../../../src/net/ip-guard.js';

type Case = [address: string, blocked: boolean, why: string];

const plainIpv4: Case[] = [
  ['8.8.8.8', false, 'public'],
  ['1.1.1.1', false, 'public'],
  ['172.32.0.1', false, 'just past 172.16.0.0/12'],
  ['127.0.0.1', true, 'loopback'],
  ['127.255.255.254', true, 'loopback, all of 127/8'],
  ['10.0.0.1', true, 'private 10/8'],
  ['192.168.1.1', true, 'private 192.168/16'],
  ['172.16.0.1', true, 'private 172.16/12'],
  ['172.31.255.255', true, 'private 172.16/12, last address'],
  ['169.254.169.254', true, 'link-local, cloud metadata'],
  ['100.64.0.1', true, 'CGNAT 100.64/10'],
  ['0.0.0.0', true, 'unspecified'],
  ['224.0.0.1', true, 'multicast'],
  ['255.255.255.255', true, 'broadcast, reserved 240/4'],
];

const plainIpv6: Case[] = [
  ['2606:4700:4700::1111', false, 'public'],
  ['2001:4860:4860::8888', false, 'public, outside 2001::/23'],
  ['2606:4700:4700:0:0:0:0:1111', false, 'public, uncompressed'],
  ['2606:4700:4700::1111%eth0', false, 'public: a zone id on a global address changes nothing'],
  ['::1', true, 'loopback'],
  ['0:0:0:0:0:0:0:1', true, 'loopback, uncompressed'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', true, 'loopback, zero-padded'],
  ['::', true, 'unspecified'],
  ['fe80::1', true, 'link-local'],
  ['FE80::1%eth0', true, 'link-local with a zone id, upper case'],
  ['fe80::1%25', true, 'link-local with a numeric zone id'],
  ['fd00:ec2::254', true, 'unique local, EC2 metadata'],
  ['fc00::1', true, 'unique local'],
  ['ff02::1', true, 'multicast'],
  ['2001:db8::1', true, 'documentation'],
];

const ipv4Mapped: Case[] = [
  ['::ffff:127.0.0.1', true, 'mapped loopback, dotted'],
  ['::ffff:7f00:1', true, 'mapped loopback, hex'],
  ['::FFFF:7F00:1', true, 'mapped loopback, upper-case hex'],
  ['0:0:0:0:0:ffff:7f00:1', true, 'mapped loopback, uncompressed'],
  ['0000:0000:0000:0000:0000:FFFF:127.0.0.1', true, 'mapped loopback, zero-padded, dotted'],
  ['::ffff:127.0.0.1%eth0', true, 'mapped loopback with a zone id'],
  ['::ffff:10.0.0.1', true, 'mapped 10/8'],
  ['::ffff:c0a8:101', true, 'mapped 192.168.1.1, hex'],
  ['::ffff:172.16.0.1', true, 'mapped 172.16/12'],
  ['::ffff:a9fe:a9fe', true, 'mapped metadata, hex'],
  ['::ffff:169.254.169.254', true, 'mapped metadata, dotted'],
  ['::ffff:100.64.0.1', true, 'mapped CGNAT'],
  ['::ffff:8.8.8.8', false, 'mapped public, dotted'],
  ['::ffff:808:808', false, 'mapped public, hex'],
  ['0:0:0:0:0:FFFF:0808:0808', false, 'mapped public, uncompressed upper case'],
];

const ipv4Translated: Case[] = [
  ['::ffff:0:127.0.0.1', true, 'SIIT loopback, dotted'],
  ['::ffff:0:7f00:1', true, 'SIIT loopback, hex'],
  ['0:0:0:0:ffff:0:a00:1', true, 'SIIT 10.0.0.1, uncompressed'],
  ['::FFFF:0:A9FE:A9FE%1', true, 'SIIT metadata, upper case, zone id'],
  ['::ffff:0:8.8.8.8', false, 'SIIT public'],
];

const ipv4Compatible: Case[] = [
  ['::127.0.0.1', true, 'compatible loopback, dotted (what [::127.0.0.1] means)'],
  ['::7f00:1', true, 'compatible loopback, hex (how a URL spells [::127.0.0.1])'],
  ['::7F00:1%lo', true, 'compatible loopback, upper case, zone id'],
  ['0:0:0:0:0:0:7f00:1', true, 'compatible loopback, uncompressed'],
  ['::10.0.0.1', true, 'compatible 10/8'],
  ['::c0a8:101', true, 'compatible 192.168.1.1, hex'],
  ['::ac10:1', true, 'compatible 172.16.0.1, hex'],
  ['::169.254.169.254', true, 'compatible metadata'],
  ['::100.64.0.1', true, 'compatible CGNAT'],
  ['::2', true, 'compatible 0.0.0.2, in 0/8'],
  ['::8.8.8.8', false, 'compatible public, dotted'],
  ['::808:808', false, 'compatible public, hex'],
];

const nat64WellKnown: Case[] = [
  ['64:ff9b::127.0.0.1', true, 'NAT64 loopback, dotted'],
  ['64:ff9b::7f00:1', true, 'NAT64 loopback, hex'],
  ['64:FF9B::A9FE:A9FE', true, 'NAT64 metadata, upper case'],
  ['64:ff9b:0:0:0:0:a00:1', true, 'NAT64 10.0.0.1, uncompressed'],
  ['0064:ff9b:0000:0000:0000:0000:c0a8:0101', true, 'NAT64 192.168.1.1, zero-padded'],
  ['64:ff9b::ac10:1%eth0', true, 'NAT64 172.16.0.1 with a zone id'],
  ['64:ff9b::100.64.0.1', true, 'NAT64 CGNAT'],
  ['64:ff9b::8.8.8.8', false, 'NAT64 public, dotted'],
  ['64:ff9b::808:808', false, 'NAT64 public, hex'],
];

// RFC 6052 /48 layout: IPv4 bits at 48-63 and 72-87, bits 64-71 zero, suffix 88-127 zero.
const nat64LocalUse: Case[] = [
  ['64:ff9b:1:7f00:0:100::', true, 'local-use NAT64 127.0.0.1'],
  ['64:FF9B:1:7F00:0:100:0:0%eth0', true, 'local-use NAT64 127.0.0.1, uncompressed, upper case, zone id'],
  ['64:ff9b:1:a00:0:100::', true, 'local-use NAT64 10.0.0.1'],
  ['64:ff9b:1:c0a8:1:100::', true, 'local-use NAT64 192.168.1.1'],
  ['64:ff9b:1:ac10:0:100::', true, 'local-use NAT64 172.16.0.1'],
  ['64:ff9b:1:a9fe:a9:fe00::', true, 'local-use NAT64 metadata'],
  ['64:ff9b:1:6440:0:100::', true, 'local-use NAT64 CGNAT'],
  ['64:ff9b:1::7f00:1', true, 'local-use NAT64, 127.0.0.1 in the last 32 bits: suffix not zero'],
  ['64:ff9b:1:808:108:800::', true, 'local-use NAT64 with a non-zero u octet: not RFC 6052'],
  ['64:ff9b:1:808:8:800::', false, 'local-use NAT64 8.8.8.8'],
  ['64:ff9b:1:808:8:800:0:0', false, 'local-use NAT64 8.8.8.8, uncompressed'],
];

// Blocked whole (see ip-guard.ts): transition tunnels a server never needs to reach.
const tunnels: Case[] = [
  ['2002:7f00:1::', true, '6to4 of 127.0.0.1'],
  ['2002:7F00:0001:0000:0000:0000:0000:0000', true, '6to4 of 127.0.0.1, uncompressed, upper case'],
  ['2002:7f00:1::%eth0', true, '6to4 of 127.0.0.1 with a zone id'],
  ['2002:a00:1::1', true, '6to4 of 10.0.0.1'],
  ['2002:c0a8:101::1', true, '6to4 of 192.168.1.1'],
  ['2002:ac10:1::', true, '6to4 of 172.16.0.1'],
  ['2002:a9fe:a9fe::', true, '6to4 of the metadata address'],
  ['2002:6440:1::', true, '6to4 of CGNAT'],
  ['2002:808:808::1', true, '6to4 of 8.8.8.8: 2002::/16 is blocked whole'],
  ['2001:0:808:808:0:0:80ff:fffe', true, 'Teredo, client 127.0.0.1 (inverted bits)'],
  ['2001:0000:4136:e378:8000:63bf:3fff:fdd2', true, 'Teredo, RFC 4380 example'],
  ['2001:0:808:808::f7f7:f7f7', true, 'Teredo of 8.8.8.8: 2001::/32 is blocked whole'],
  ['2001:0:a00:1::', true, 'Teredo, server 10.0.0.1'],
  ['2001:0:808:808::5601:5601', true, 'Teredo, client 169.254.169.254 (inverted bits)'],
  ['2002:a9fe:a9fe::%eth0', true, '6to4 of the metadata address with a zone id'],
];

// Ranges ipaddr.js names that are no destination on the internet: whatever is not plain unicast is refused.
const specialPurpose: Case[] = [
  ['192.0.0.8', true, 'IETF protocol assignments 192.0.0/24'],
  ['198.18.0.1', true, 'benchmarking 198.18/15'],
  ['192.0.2.1', true, 'documentation TEST-NET-1'],
  ['2001:2::1', true, 'benchmarking 2001:2::/48'],
  ['2001:20::1', true, 'ORCHIDv2 2001:20::/28'],
  ['3fff::1', true, 'documentation 3fff::/20 (RFC 9637)'],
  ['100::1', true, 'discard-only 100::/64'],
  ['fec0::1', true, 'site-local'],
];

const garbage: Case[] = [
  ['', true, 'empty'],
  ['localhost', true, 'a name, not an address'],
  ['[::1]', true, 'brackets belong to URLs'],
  [' ::1', true, 'leading space'],
  ['::1 ', true, 'trailing space'],
  ['1::2::3', true, 'two ::'],
  [':::', true, 'three colons'],
  ['1:2:3:4:5:6:7:8:9', true, 'nine groups'],
  ['1:2:3:4:5:6:7:8::', true, ':: standing for nothing'],
  ['1:2:3:4:5:6:7', true, 'seven groups, no ::'],
  ['12345::', true, 'a five-digit group'],
  ['gggg::', true, 'not hex'],
  ['::1%', true, 'empty zone id'],
  ['::1%a%b', true, 'two zone ids'],
  ['::ffff:1.2.3.256', true, 'an octet over 255'],
  ['::ffff:01.2.3.4', true, 'a leading zero in an octet'],
  ['1.2.3.4::', true, 'a dotted quad not at the end'],
  ['1.2.3', true, 'three octets'],
  ['256.1.1.1', true, 'an octet over 255'],
  ['0x7f.0.0.1', true, 'hex IPv4 (URLs normalise these before the guard)'],
  ['2130706433', true, 'IPv4 as one number'],
];

const tables = {
  plainIpv4,
  plainIpv6,
  ipv4Mapped,
  ipv4Translated,
  ipv4Compatible,
  nat64WellKnown,
  nat64LocalUse,
  tunnels,
  specialPurpose,
  garbage,
};

for (const [table, cases] of Object.entries(tables)) {
  test(`isBlockedAddress: ${table}`, async (t) => {
    for (const [address, blocked, why] of cases) {
      await t.test(`${JSON.stringify(address)} ${blocked ? 'blocked' : 'allowed'}: ${why}`, () => {
        assert.equal(isBlockedAddress(address), blocked);
      });
    }
  });
}

/** An IPv6 address as eight groups written out in full, upper case, with its last 32 bits as a dotted quad. */
function spelledOut(bytes: number[]): string {
  const groups = Array.from({ length: 6 }, (_, i) =>
    ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16).toUpperCase().padStart(4, '0'),
  );
  return `${groups.join(':')}:${bytes.slice(12).join('.')}`;
}

/** The same address compressed the RFC 5952 way (`::` for the longest run of zero groups), lower case. */
function compressed(bytes: number[]): string {
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i] << 8) | bytes[2 * i + 1]);
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > best.length) best = { start, length };
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

test('isBlockedAddress: every spelling of one IPv6 address gets the same answer', () => {
  // Bytes drawn so that the carrying and special prefixes come up often, not only random unicast.
  const prefixes = [
    [],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff],
    [0, 0x64, 0xff, 0x9b],
    [0, 0x64, 0xff, 0x9b, 0, 1],
    [0x20, 0x02],
    [0x20, 0x01, 0, 0],
    [0xfe, 0x80],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  ];
  const address = fc
    .tuple(
      fc.constantFrom(...prefixes),
      fc.array(fc.constantFrom(0, 0, 0, 1, 8, 10, 127, 169, 172, 192, 254, 255), { minLength: 16, maxLength: 16 }),
    )
    .map(([prefix, rest]) => [...prefix, ...rest.slice(prefix.length)]);
  fc.assert(
    fc.property(address, (bytes) => {
      const verdict = isBlockedAddress(compressed(bytes));
      assert.equal(isBlockedAddress(spelledOut(bytes)), verdict, spelledOut(bytes));
      assert.equal(isBlockedAddress(`${compressed(bytes)}%eth0`), verdict);
    }),
    { numRuns: 500 },
  );
});

const metadata: Case[] = [
  ['169.254.169.254', true, 'AWS, Google Cloud, Azure, Oracle, OpenStack'],
  ['169.254.170.2', true, 'AWS ECS task credentials'],
  ['169.254.0.23', true, 'Tencent Cloud'],
  ['100.100.100.200', true, 'Alibaba Cloud'],
  ['168.63.129.16', true, 'Azure WireServer, a public address'],
  ['192.0.0.192', true, 'Oracle Cloud, legacy'],
  ['fd00:ec2::254', true, 'AWS IMDS over IPv6'],
  ['fd00:ec2::23', true, 'AWS EKS pod identity over IPv6'],
  ['fd20:ce::254', true, 'Google Cloud over IPv6'],
  ['::ffff:169.254.169.254', true, 'mapped'],
  ['::ffff:a9fe:a9fe', true, 'mapped, hex'],
  ['64:ff9b::a9fe:a9fe', true, 'NAT64 well-known prefix'],
  ['::169.254.169.254', true, 'IPv4-compatible'],
  ['64:ff9b:1::a9fe:a9fe', true, 'NAT64 local-use, a layout not read: may hide one'],
  ['127.0.0.1', false, 'loopback: private, not metadata'],
  ['10.0.0.1', false, 'private'],
  ['100.100.100.201', false, "CGNAT beside Alibaba's"],
  ['168.63.129.17', false, "beside Azure's"],
  ['fd00::1', false, 'another unique local address'],
  ['fe80::1', false, 'IPv6 link-local'],
  ['::1', false, 'IPv6 loopback'],
  ['8.8.8.8', false, 'public'],
  ['2606:4700::1111', false, 'public IPv6'],
  ['not an address', false, 'not an address (isBlockedAddress refuses it)'],
];

test('isMetadataAddress: cloud metadata services, however written, and nothing else', async (t) => {
  for (const [address, expected, why] of metadata) {
    await t.test(`${address} (${why})`, () => assert.equal(isMetadataAddress(address), expected));
  }
});
