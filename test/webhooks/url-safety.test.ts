import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, refusalAtDelivery } from '../../src/webhooks/url-safety.js';

const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

/** Every way an IPv6 address can carry an IPv4 address that reaches it: each is judged by that IPv4 address. */
const embeddings = (o: number[]): string[] => [
  `::ffff:${o.join('.')}`,
  `::ffff:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}`,
  `::${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}`,
  `64:ff9b::${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}`,
  `2002:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}::1`,
];

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const publicV4 = octets.filter((o) => ipaddr.fromByteArray(o).range() === 'unicast');
const privateV4 = octets.filter((o) => ipaddr.fromByteArray(o).range() !== 'unicast');

/** What the delivering process sees: the host of a URL as the URL parser writes it, brackets removed. */
const hostOf = (literal: string) => new URL(`https://[${literal}]/`).hostname.slice(1, -1);

describe('isPublicAddress', () => {
  it.each([
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    ['2002:c0a8:101::1', false],
    ['::ffff:169.254.169.254', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['2001::1', false],
    ['64:ff9b:1::a00:1', false],
    ['::ffff:0:7f00:1', false],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['100.64.0.1', false],
    ['93.184.216.34', true],
    ['::ffff:93.184.216.34', true],
    ['64:ff9b::93.184.216.34', true],
    ['2606:2800:220:1:248:1893:25c8:1946', true],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
    if (address.includes(':')) expect(isPublicAddress(hostOf(address))).toBe(expected);
  });

  it('judges every IPv4-carrying IPv6 form, as written and as a URL parser rewrites it, by its IPv4 address', () => {
    fc.assert(
      fc.property(privateV4, (o) => {
        for (const form of embeddings(o)) {
          expect(isPublicAddress(form), form).toBe(false);
          expect(isPublicAddress(hostOf(form)), form).toBe(false);
          expect(refusalAtDelivery(`https://[${form}]/hook`, false), form).toMatch(/^url must not point to a private/);
        }
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(publicV4, (o) => {
        for (const form of embeddings(o)) expect(isPublicAddress(hostOf(form)), form).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('refusalAtDelivery', () => {
  it.each([
    [
      'http://93.184.216.34/hook',
      false,
      'url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
    ],
    [
      'https://10.0.0.1/hook',
      false,
      'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
    ],
    [
      'https://2130706433/hook',
      false,
      'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
    ],
    ['https://user:pw@93.184.216.34/hook', false, 'url must not contain credentials'],
    ['ftp://93.184.216.34/hook', true, 'url must use http or https'],
    ['https://93.184.216.34/hook', false, null],
    // A host name is judged at connect time, on the addresses it resolves to then.
    ['https://hooks.example.com/hook', false, null],
    ['http://127.0.0.1/hook', true, null],
  ])('%s (private allowed: %s)', (url, allowPrivate, expected) => {
    expect(refusalAtDelivery(url, allowPrivate)).toBe(expected);
  });
});
