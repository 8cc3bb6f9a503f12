import { describe, expect, it } from 'vitest';
import { PRIVATE_URLS } from '../../../test/support/private-urls.ts';
import { savedUrlProblem } from './saved-url.ts';

describe('savedUrlProblem', () => {
  it.each(PRIVATE_URLS)('refuses %s as a private address', async (url) => {
    expect(await savedUrlProblem(url, { allowPrivate: false })).toMatchObject({ reason: 'private_address' });
  });

  it('lets every one through when the private-address setting is on', async () => {
    for (const url of PRIVATE_URLS) expect(await savedUrlProblem(url, { allowPrivate: true })).toBeNull();
  });

  it('accepts a public address, and a name that does not resolve yet (checked again at every call)', async () => {
    expect(await savedUrlProblem('https://93.184.215.14/hook', { allowPrivate: false })).toBeNull();
    expect(await savedUrlProblem('https://no-such-host.invalid/hook', { allowPrivate: false })).toBeNull();
  });

  it('refuses what is no http(s) URL, credentials in it, and plain http where https is required', async () => {
    expect(await savedUrlProblem('ftp://example.com/', { allowPrivate: false })).toMatchObject({ reason: 'bad_url' });
    expect(await savedUrlProblem('https://u:p@example.com/', { allowPrivate: true })).toMatchObject({
      reason: 'bad_url',
    });
    expect(await savedUrlProblem('http://93.184.215.14/', { allowPrivate: false, httpsOnly: true })).toMatchObject({
      reason: 'insecure',
    });
  });
});
