import { describe, expect, it } from 'vitest';
import { AfterAnswer } from './after-answer.ts';

function logged() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const log = {
    warn: (obj: Record<string, unknown>, msg: string) => void lines.push({ level: 'warn', obj, msg }),
    error: (obj: Record<string, unknown>, msg: string) => void lines.push({ level: 'error', obj, msg }),
  };
  return { lines, log: log as unknown as ConstructorParameters<typeof AfterAnswer>[0]['log'] };
}

describe('AfterAnswer', () => {
  it('skips and logs a piece beyond its cap, and takes work again once a piece has ended', async () => {
    const { lines, log } = logged();
    const later = new AfterAnswer({ max: 2, log });
    const release = later.hold();
    const done: string[] = [];
    expect(later.run('a', async () => void done.push('a'))).toBe(true);
    expect(later.run('b', async () => void done.push('b'))).toBe(true);
    expect(later.run('c', async () => void done.push('c'))).toBe(false);
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', obj: expect.objectContaining({ work: 'c' }) })]);
    expect(done).toEqual([]);
    release();
    await later.settled();
    expect(done).toEqual(['a', 'b']);
    expect(later.run('d', async () => void done.push('d'))).toBe(true);
    await later.settled();
    expect(done).toEqual(['a', 'b', 'd']);
  });

  it('logs a failed piece instead of leaving its rejection unhandled', async () => {
    const { lines, log } = logged();
    const later = new AfterAnswer({ max: 5, log });
    later.run('boom', () => Promise.reject(new Error('no database')));
    await later.settled();
    expect(later.size).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', obj: expect.objectContaining({ work: 'boom' }) }),
    ]);
  });

  it('waits at close for the pieces under way, held ones too, and takes none after', async () => {
    const { lines, log } = logged();
    const later = new AfterAnswer({ max: 5, log });
    later.hold();
    const done: string[] = [];
    later.run('a', async () => void done.push('a'));
    await later.close();
    expect(done).toEqual(['a']);
    expect(later.run('b', async () => void done.push('b'))).toBe(false);
    await later.settled();
    expect(done).toEqual(['a']);
    expect(lines.map((l) => l.obj.closing)).toEqual([true]);
  });
});
