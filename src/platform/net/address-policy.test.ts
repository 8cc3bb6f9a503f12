import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.ts';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.5.6.7',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::7f00:1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not-an-address',
  ])('%s is not public', (a) => expect(isPublicAddress(a)).toBe(false));

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])('%s is public', (a) =>
    expect(isPublicAddress(a)).toBe(true),
  );
});
