import type { Decider } from '../../kernel/es/decider.ts';
import type { SubjectAccessExported } from './privacy.events.ts';
import { SubjectAccessExists } from './privacy.errors.ts';

export type SarState = { exported: SubjectAccessExported['data'] | null };

/** Records a subject-access export once its bytes are stored. */
export type RecordSubjectAccess = {
  type: 'RecordSubjectAccess';
  data: Omit<SubjectAccessExported['data'], 'at'> & { now: string };
};

/** A request's export is recorded once. */
export const sarDecider: Decider<SarState, RecordSubjectAccess, SubjectAccessExported> = {
  initialState: () => ({ exported: null }),
  evolve: (_s, e) => ({ exported: e.data }),
  decide: (cmd, s) => {
    const { now, ...data } = cmd.data;
    if (s.exported) throw new SubjectAccessExists({ id: data.sarId });
    return [{ type: 'SubjectAccessExported', data: { ...data, at: now } }];
  },
};
