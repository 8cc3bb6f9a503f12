import type { Decider } from '../../kernel/es/decider.ts';
import type {
  PrivacyEvent,
  SubjectAccessExported,
  SubjectAccessExportDeleted,
} from '../../contracts/privacy/privacy.events.ts';
import { SubjectAccessExists, SubjectAccessNotFound } from './privacy.errors.ts';

export type SarState = {
  exported: SubjectAccessExported['data'] | null;
  deleted: SubjectAccessExportDeleted['data'] | null;
};

/** Records a subject-access export once its bytes are stored. */
export type RecordSubjectAccess = {
  type: 'RecordSubjectAccess';
  data: Omit<SubjectAccessExported['data'], 'at'> & { now: string };
};
/** Records that an export's file was deleted (once; again is nothing). */
export type RecordExportDeleted = {
  type: 'RecordExportDeleted';
  data: { sarId: string; reason: SubjectAccessExportDeleted['data']['reason']; now: string };
};
export type SarCommand = RecordSubjectAccess | RecordExportDeleted;

/** A request's export is recorded once; its file's deletion too. */
export const sarDecider: Decider<SarState, SarCommand, PrivacyEvent> = {
  initialState: () => ({ exported: null, deleted: null }),
  evolve: (s, e) =>
    e.type === 'SubjectAccessExported' ? { ...s, exported: e.data } : { ...s, deleted: s.deleted ?? e.data },
  decide: (cmd, s) => {
    if (cmd.type === 'RecordExportDeleted') {
      const { now, ...data } = cmd.data;
      if (!s.exported) throw new SubjectAccessNotFound({ id: data.sarId });
      if (s.deleted) return [];
      return [{ type: 'SubjectAccessExportDeleted', data: { ...data, objectKey: s.exported.objectKey, at: now } }];
    }
    const { now, ...data } = cmd.data;
    if (s.exported) throw new SubjectAccessExists({ id: data.sarId });
    return [{ type: 'SubjectAccessExported', data: { ...data, at: now } }];
  },
};
