import { describe, expect, it } from 'vitest';
import { envelopeProblem, leaked, prototypeChanges, report } from './fuzz-checks.ts';

const answer = (statusCode: number, body: string) => ({ statusCode, body, contentType: 'application/json' });

describe('the fuzz checks', () => {
  it('accept the envelope and bodiless 204/304, and name every other shape', () => {
    expect(envelopeProblem(answer(200, '{"data":null}'))).toBeNull();
    expect(envelopeProblem(answer(204, ''))).toBeNull();
    expect(
      envelopeProblem(answer(400, '{"errors":[{"code":"X","message":"m","path":[],"extensions":{}}]}')),
    ).toBeNull();
    expect(envelopeProblem(answer(200, '{}'))).toBe('success without data');
    expect(envelopeProblem(answer(400, '{"code":"FST_ERR_BAD_URL","statusCode":400}'))).toBe(
      'failure without errors[]',
    );
    expect(envelopeProblem(answer(400, '{"errors":[{"code":"X","message":"m"}]}'))).toMatch(/^error object not/);
    expect(envelopeProblem(answer(431, ''))).toBe('not JSON (application/json)');
    expect(envelopeProblem(answer(0, ''))).toBe('no HTTP answer');
  });

  it('see the other site’s ids and markers unless the request carried them', () => {
    expect(leaked('{"data":{"id":"abc","t":"MARK"}}', ['abc', 'MARK', 'zzz'], '/x/abc')).toEqual(['MARK']);
  });

  it('notice a key left on Object.prototype, and remove it', () => {
    (Object.prototype as unknown as Record<string, unknown>).fuzzCheck = 1;
    expect(prototypeChanges()).toEqual(['Object.prototype.fuzzCheck']);
    expect(Object.hasOwn(Object.prototype, 'fuzzCheck')).toBe(false);
  });

  it('group findings by problem and operation', () => {
    const f = {
      problem: '5xx',
      method: 'GET',
      template: '/a',
      caller: 'c',
      kind: 'k',
      status: 500,
      url: '/a',
      snippet: '',
    };
    expect(report([f, { ...f, kind: 'k2' }])).toMatch(
      /^2 failures in 1 groups\nfirst, in order:\n {2}5xx c k: GET \/a → 500\n {2}5xx c k2: GET \/a → 500\nby group:\n- 5xx \| GET \/a \| 500 \| callers: c \| inputs: k,k2/,
    );
  });
});
