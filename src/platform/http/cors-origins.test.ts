import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { OriginList, originPatternProblem } from './cors-origins.ts';

describe('origin patterns', () => {
  it.each(['https://app.example.com', 'http://127.0.0.1:5173', 'https://*.example.com', 'http://*.example.com:8080'])(
    'take %s',
    (p) => expect(originPatternProblem(p)).toBeNull(),
  );

  it.each([
    '*',
    '',
    'https://app.example.com/',
    'https://app.example.com/x',
    'https://user@app.example.com',
    'HTTPS://app.example.com',
    'https://*.com',
    'https://*',
    'https://a.*.example.com',
    'https://*example.com',
    '*.example.com',
    'ws://app.example.com',
    'null',
  ])('refuse %j', (p) => expect(originPatternProblem(p)).not.toBeNull());

  it('match a wildcard on the subdomains of its domain, with its scheme and port only', () => {
    const list = new OriginList(['https://*.example.com', 'http://*.local.test:8080', 'https://exact.example.org']);
    for (const yes of [
      'https://a.example.com',
      'https://a.b.example.com',
      'http://x.local.test:8080',
      'https://exact.example.org',
    ])
      expect(list.allows(yes), yes).toBe(true);
    for (const no of [
      'https://example.com',
      'http://a.example.com',
      'https://a.example.com:8443',
      'https://a.example.com.evil.net',
      'https://aexample.com',
      'http://x.local.test',
      'https://exact.example.org:443x',
      'null',
    ])
      expect(list.allows(no), no).toBe(false);
  });
});

describe('SVC_CORS_ORIGINS and SVC_CORS_CREDENTIALS', () => {
  const load = (env: Record<string, string>) => () => loadConfig({ JWT_SECRET: 'x'.repeat(32), ...env });

  it('are empty and off by default', () => {
    const c = load({})();
    expect([c.SVC_CORS_ORIGINS, c.SVC_CORS_CREDENTIALS]).toEqual([[], false]);
  });

  it('read a comma list of patterns', () => {
    expect(load({ SVC_CORS_ORIGINS: ' https://a.example.com ,https://*.example.net,' })().SVC_CORS_ORIGINS).toEqual([
      'https://a.example.com',
      'https://*.example.net',
    ]);
  });

  it('refuse a bad pattern, naming it, and credentials without origins', () => {
    expect(load({ SVC_CORS_ORIGINS: 'https://a.example.com,*' })).toThrow(/SVC_CORS_ORIGINS: "\*": \* is not/);
    expect(load({ SVC_CORS_ORIGINS: 'https://a.example.com/app' })).toThrow(/SVC_CORS_ORIGINS: .*no path/);
    expect(load({ SVC_CORS_CREDENTIALS: 'true' })).toThrow(/SVC_CORS_CREDENTIALS: credentialed calls need/);
  });
});
