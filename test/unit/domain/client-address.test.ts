import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientAddress, parseProxyRange } from '../../../src/domain/client-address.js';

test('without trusted proxies the socket peer is the client, whatever X-Forwarded-For says', () => {
  assert.equal(clientAddress('203.0.113.7', '198.51.100.1', []), '203.0.113.7');
  assert.equal(clientAddress(undefined, undefined, []), 'unknown');
});

test('behind a trusted proxy the rightmost hop that is not a proxy is the client; spoofed hops to its left are ignored', () => {
  const trusted = ['127.0.0.1', '10.0.0.0/8'];
  assert.equal(clientAddress('127.0.0.1', '203.0.113.7', trusted), '203.0.113.7');
  assert.equal(
    clientAddress('::ffff:127.0.0.1', '203.0.113.7', trusted),
    '203.0.113.7',
    'an IPv4-mapped peer matches its IPv4 range',
  );
  assert.equal(
    clientAddress('127.0.0.1', '6.6.6.6, 203.0.113.7, 10.1.2.3', trusted),
    '203.0.113.7',
    'a chain of proxies, and a spoofed first hop',
  );
  assert.equal(
    clientAddress('127.0.0.1', '10.0.0.1, 10.0.0.2', trusted),
    '10.0.0.1',
    'every hop a proxy: the leftmost',
  );
  assert.equal(clientAddress('127.0.0.1', 'garbage, 203.0.113.7', trusted), '203.0.113.7');
  assert.equal(
    clientAddress('127.0.0.1', '203.0.113.7, garbage', trusted),
    '127.0.0.1',
    'an unreadable hop: nothing past it is believed',
  );
  assert.equal(clientAddress('127.0.0.1', undefined, trusted), '127.0.0.1');
});

test('a peer that is not a trusted proxy cannot name another client', () => {
  assert.equal(clientAddress('203.0.113.7', '198.51.100.1', ['127.0.0.1']), '203.0.113.7');
  assert.equal(clientAddress('2001:db8::5', '198.51.100.1', ['::1', '10.0.0.0/8']), '2001:db8::5');
  assert.equal(clientAddress('::1', '2001:db8::5', ['::1']), '2001:db8::5');
});

test('proxy ranges: addresses and CIDR ranges of both families; anything else is refused', () => {
  assert.deepEqual(parseProxyRange('10.0.0.0/8')?.[1], 8);
  assert.deepEqual(parseProxyRange('::1')?.[1], 128);
  assert.deepEqual(parseProxyRange('192.168.1.10')?.[1], 32);
  assert.equal(parseProxyRange('localhost'), null);
  assert.equal(parseProxyRange('10.0.0.0/33'), null);
});
