import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkCron } from './flow-cron.ts';

const now = new Date('2025-01-01T00:00:00Z');
const reason = (expr: string) => {
  const r = checkCron(expr, now);
  return r.ok ? null : r.reason;
};

describe('checkCron', () => {
  it('accepts 5 fields in UTC and gives the next firing after now', () => {
    expect(checkCron('0 9 * * *', now)).toEqual({ ok: true, nextRunAt: new Date('2025-01-01T09:00:00Z') });
    expect(checkCron('*/15 * * * 1-5', new Date('2025-01-01T10:07:00Z'))).toEqual({
      ok: true,
      nextRunAt: new Date('2025-01-01T10:15:00Z'),
    });
  });

  it('refuses 4 fields, 6 fields and nicknames', () => {
    for (const expr of ['0 9 * *', '0 0 9 * * *', '@daily', '@hourly', '', '   '])
      expect(reason(expr), expr).toMatch(/exactly 5 fields/);
  });

  it('refuses out-of-range values and garbage', () => {
    expect(reason('61 * * * *')).not.toBeNull();
    expect(reason('a b c d e')).not.toBeNull();
    expect(reason('0 9 * * *; rm -rf')).not.toBeNull();
  });

  it('refuses an expression that can never fire (30 February)', () => {
    expect(reason('0 0 30 2 *')).toBe('the expression never fires');
    expect(reason('0 0 31 4 *')).toBe('the expression never fires');
  });

  it('accepts 29 February, which fires in a leap year', () => {
    expect(checkCron('0 0 29 2 *', now)).toEqual({ ok: true, nextRunAt: new Date('2028-02-29T00:00:00Z') });
  });

  it('always answers, and a firing is always after now, for any 5 small fields', () => {
    const field = fc.oneof(fc.constant('*'), fc.integer({ min: 0, max: 70 }).map(String), fc.constant('*/7'));
    fc.assert(
      fc.property(fc.array(field, { minLength: 5, maxLength: 5 }), (fields) => {
        const r = checkCron(fields.join(' '), now);
        if (r.ok) expect(r.nextRunAt.getTime()).toBeGreaterThan(now.getTime());
      }),
    );
  });
});
