import { createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFlowTree, encodeFlowTree, type FlowTree, type FlowTreeMac } from './flow-tree.ts';

const macOf = (key: string): FlowTreeMac => {
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    sign,
    verify: (payload, signature) => {
      const a = Buffer.from(sign(payload));
      const b = Buffer.from(signature);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
};
const mac = macOf('one key');
const now = new Date('2026-04-01T08:00:00Z');
const tree: FlowTree = {
  siteId: 'main',
  rootRunId: 'root',
  runId: 'root.t1',
  nodeId: 'call',
  depth: 1,
  expiresAt: now.getTime() + 60_000,
};

describe('the flow tree header', () => {
  it('reads back what was written while it lasts', () => {
    expect(decodeFlowTree(encodeFlowTree(tree, mac.sign), mac, now)).toEqual(tree);
  });

  it('is not taken past its lifetime, under another key, or in another version', () => {
    const header = encodeFlowTree(tree, mac.sign);
    expect(decodeFlowTree(header, mac, new Date(tree.expiresAt))).toBeNull();
    expect(decodeFlowTree(header, macOf('another key'), now)).toBeNull();
    expect(decodeFlowTree(header.replace(/^v1\./, 'v2.'), mac, now)).toBeNull();
    expect(decodeFlowTree(`${header}.x`, mac, now)).toBeNull();
    expect(decodeFlowTree(['a', 'b'], mac, now)).toBeNull();
  });

  it('is not taken with any one character changed', () =>
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom(...'AQgw_-.xz0'), (at, c) => {
        const header = encodeFlowTree(tree, mac.sign);
        const i = at % header.length;
        fc.pre(header[i] !== c);
        const changed = header.slice(0, i) + c + header.slice(i + 1);
        expect(decodeFlowTree(changed, mac, now)).toBeNull();
      }),
    ));

  it('is not taken when its signed claims are not a tree (the MAC alone is not enough)', () => {
    const payload = `v1.${Buffer.from(JSON.stringify({ site: 'main', __proto__: { x: 1 } })).toString('base64url')}`;
    expect(decodeFlowTree(`${payload}.${mac.sign(payload)}`, mac, now)).toBeNull();
    const notJson = `v1.${Buffer.from('{').toString('base64url')}`;
    expect(decodeFlowTree(`${notJson}.${mac.sign(notJson)}`, mac, now)).toBeNull();
  });
});
