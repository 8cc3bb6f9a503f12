import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { renderTemplate, templateRefs, TemplateError, TEMPLATE_LIMITS, type DataChain } from './flow-template.ts';

const chain: DataChain = new Map<string, unknown>([
  ['$trigger', { user: { name: 'Ada', tags: ['x', 'y'] }, count: 3 }],
  ['$last', { ok: true, id: 'i1' }],
  ['fetch', { status: 200, body: { items: [{ title: 'T' }] } }],
]);
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('renderTemplate', () => {
  it('keeps the type of a whole-string reference and interpolates others as text', () => {
    const out = renderTemplate(
      {
        user: '{{ $trigger.user }}',
        count: '{{$trigger.count}}',
        ok: '{{ $last.ok }}',
        line: 'Hi {{ $trigger.user.name }}, {{ $trigger.count }} new; {{ fetch.body.items.0.title }}',
        list: ['{{ $trigger.user.tags.1 }}', 7, null],
        missing: '{{ $trigger.nope.deeper }}',
        gap: '[{{ $trigger.nope }}]',
      },
      chain,
    );
    expect(plain(out)).toEqual({
      user: { name: 'Ada', tags: ['x', 'y'] },
      count: 3,
      ok: true,
      line: 'Hi Ada, 3 new; T',
      list: ['y', 7, null],
      missing: null,
      gap: '[]',
    });
  });

  it('never reads inherited members, and refuses prototype names as references', () => {
    const out = renderTemplate(['{{ $trigger.user.toString }}', '{{ $trigger.user.tags.length }}'], chain);
    expect(out).toEqual([null, null]);
    for (const ref of ['$trigger.constructor', '$last.__proto__', 'prototype.x'])
      expect(() => renderTemplate(`{{ ${ref} }}`, chain), ref).toThrow(TemplateError);
  });

  it('evaluates nothing: an expression is refused', () => {
    expect(() => renderTemplate('{{ $trigger.count + 1 }}', chain)).toThrow(TemplateError);
    expect(() => renderTemplate('{{ process.exit() }}', chain)).toThrow(TemplateError);
  });

  it('caps depth and output size', () => {
    let deep: unknown = 'x';
    for (let i = 0; i <= TEMPLATE_LIMITS.depth; i++) deep = [deep];
    expect(() => renderTemplate(deep, chain)).toThrow(/nests at most/);
    const big = new Map<string, unknown>([['$trigger', 'x'.repeat(100_000)]]);
    expect(() =>
      renderTemplate(
        Array.from({ length: 20 }, () => '{{ $trigger }}'),
        big,
      ),
    ).toThrow(/at most/);
  });

  it('builds objects without a prototype from template keys', () => {
    const out = renderTemplate({ toString: '{{ $last.id }}', hasOwnProperty: 1 }, chain) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(out.toString).toBe('i1');
  });

  it('renders a template without references to itself', () => {
    const json = fc
      .jsonValue({ maxDepth: 6 })
      .filter((v) => !/\{\{|"(__proto__|constructor|prototype)":/.test(JSON.stringify(v)));
    fc.assert(
      fc.property(json, (v) => {
        expect(plain(renderTemplate(v, chain))).toEqual(plain(v));
      }),
    );
  });
});

describe('templateRefs', () => {
  it('lists each reference with where it stands and its path', () => {
    const { refs, depth } = templateRefs({ a: ['{{ $last.x }} and {{ node-1.y.0 }}'], b: '{{ bad path }}' });
    expect(refs.map((r) => [r.at, r.path?.head ?? null])).toEqual(
      expect.arrayContaining([
        [['a', '0'], '$last'],
        [['a', '0'], 'node-1'],
        [['b'], null],
      ]),
    );
    expect(depth).toBe(2);
  });
});
