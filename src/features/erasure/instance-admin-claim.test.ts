import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { instanceAdminClaimDecider, type InstanceAdminErasureClaimed } from './instance-admin-claim.ts';

const given = deciderSpec(instanceAdminClaimDecider);
const claimed = (subjectId: string): InstanceAdminErasureClaimed => ({
  type: 'InstanceAdminErasureClaimed',
  data: { subjectId, by: 'x', at: '2026-01-01T00:00:00.000Z' },
});
const claim = (subjectId: string, instanceAdmins: string[]) => ({
  subjectId,
  instanceAdmins,
  by: 'x',
  at: '2026-01-01T00:00:00.000Z',
});

describe('InstanceAdminErasureClaim', () => {
  it('claims the erasure of one of two instance administrators', () =>
    given([])
      .when(claim('b', ['a', 'b']))
      .then([claimed('b')]));
  it('refuses the last one with CONFLICT', () =>
    given([])
      .when(claim('a', ['a']))
      .thenThrows('CONFLICT'));
  it('counts an earlier claim whose erasure the read model has not seen yet', () =>
    given([claimed('b')])
      .when(claim('a', ['a', 'b']))
      .thenThrows('CONFLICT'));
  it('answers a claim made already with nothing new', () =>
    given([claimed('b')])
      .when(claim('b', ['a', 'b']))
      .then([]));
  it('never lets every instance administrator be claimed, in any order of claims', () =>
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 }), (subjects) => {
        const admins = ['a', 'b', 'c', 'd'];
        const { state } = runCommands(
          instanceAdminClaimDecider,
          subjects.map((s) => claim(s, admins)),
        );
        expect(admins.filter((a) => !state.has(a)).length).toBeGreaterThan(0);
      }),
    ));
});
