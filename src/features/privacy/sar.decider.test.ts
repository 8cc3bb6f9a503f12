import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { sarDecider, type RecordExportDeleted, type RecordSubjectAccess } from './sar.decider.ts';
import type { SubjectAccessExported } from '../../contracts/privacy/privacy.events.ts';

const given = deciderSpec(sarDecider);
const at = '2026-03-01T10:00:00.000Z';
const record = (sarId: string): RecordSubjectAccess => ({
  type: 'RecordSubjectAccess',
  data: {
    sarId,
    subjectId: 'u1',
    format: 'json',
    objectKey: `sites/main/sar/${sarId}.json`,
    size: 10,
    sha256: 'ab',
    by: 'admin',
    now: at,
  },
});
const exported = (sarId: string): SubjectAccessExported => {
  const { now, ...data } = record(sarId).data;
  return { type: 'SubjectAccessExported', data: { ...data, at: now } };
};

const drop = (sarId: string): RecordExportDeleted => ({
  type: 'RecordExportDeleted',
  data: { sarId, reason: 'retention', now: at },
});

describe('Subject-access request', () => {
  it('records the deletion of its file once, and only of an export it made', () => {
    const deleted = {
      type: 'SubjectAccessExportDeleted' as const,
      data: { sarId: 's1', objectKey: 'sites/main/sar/s1.json', reason: 'retention' as const, at },
    };
    given([exported('s1')])
      .when(drop('s1'))
      .then([deleted]);
    given([exported('s1'), deleted])
      .when(drop('s1'))
      .then([]);
    given([]).when(drop('s1')).thenThrows('NOT_FOUND');
  });

  it('records its export once', () =>
    given([])
      .when(record('s1'))
      .then([exported('s1')]));

  it('refuses a second record of the same request with CONFLICT', () =>
    given([exported('s1')])
      .when(record('s1'))
      .thenThrows('CONFLICT'));

  it('evolve accepts every event that decide emits, and at most one is ever emitted', () =>
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 8 }).map(record), { maxLength: 6 }), (cmds) => {
        const { state, events } = runCommands(sarDecider, cmds);
        expect(events.length).toBe(cmds.length === 0 ? 0 : 1);
        expect(state.exported).toEqual(events[0]?.data ?? null);
      }),
    ));
});
