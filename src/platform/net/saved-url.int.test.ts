import { hostname } from 'node:os';
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

  it('checks at send what a save could not look up in time, but never waits for an address or a loopback name', async () => {
    const past = AbortSignal.abort();
    // This machine's own name resolves to one of its addresses (private): refused when looked up in time, and
    // checked again when it is called once the save's deadline cut its lookup short.
    const own = `https://${hostname()}/hook`;
    expect(await savedUrlProblem(own, { allowPrivate: false })).toMatchObject({ reason: 'private_address' });
    expect(await savedUrlProblem(own, { allowPrivate: false, deadline: past })).toBeNull();
    for (const url of [
      'https://127.0.0.1/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://localhost./x',
      'https://a.localhost/x',
    ])
      expect(await savedUrlProblem(url, { allowPrivate: false, deadline: past }), url).toMatchObject({
        reason: 'private_address',
      });
  });
});
