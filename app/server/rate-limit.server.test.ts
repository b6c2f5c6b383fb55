import { expect, test } from 'vitest'
import { ipSubject, slowDownMs, type SlowDownRule } from './rate-limit.server.ts'

test.each([
  ['an IPv4 address as it is', '203.0.113.7', '203.0.113.7'],
  ['IPv4 reported by a dual-stack socket', '::ffff:203.0.113.7', '203.0.113.7'],
  ['IPv6 by its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
  ['IPv6 in any spelling of the same /64', '2001:0DB8:0001:0002::1', '2001:db8:1:2::/64'],
  ['IPv6 compressed inside the prefix', '2001:db8::1', '2001:db8:0:0::/64'],
  ['loopback', '::1', '0:0:0:0::/64'],
  ['an embedded IPv4 tail', '64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ['a zone id', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['something else as it is', 'unknown', 'unknown'],
])('%s', (_, ip, subject) => {
  expect(ipSubject(ip)).toBe(subject)
})

test('two addresses of one /64 are one subject; the next /64 is another', () => {
  expect(ipSubject('2001:db8:1:2::1')).toBe(ipSubject('2001:db8:1:2:ffff::9'))
  expect(ipSubject('2001:db8:1:3::1')).not.toBe(ipSubject('2001:db8:1:2::1'))
})

test('a slow-down: nothing up to its limit, then twice as long each hit, never beyond its cap', () => {
  const rule: SlowDownRule = {
    name: 'test',
    limit: 20,
    windowMs: 60_000,
    firstDelayMs: 250,
    maxDelayMs: 2_000,
  }
  expect([1, 20, 21, 22, 23, 24, 25, 10_000].map((hits) => slowDownMs(rule, hits))).toEqual([
    0, 0, 250, 500, 1_000, 2_000, 2_000, 2_000,
  ])
})
