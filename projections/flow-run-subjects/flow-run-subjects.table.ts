/** Which subjects (people, items that are their own subjects) each flow run concerns (DDL in the projector). */
export interface FlowRunSubjectsTable {
  site_id: string;
  run_id: string;
  subject_id: string;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    flow_run_subjects: FlowRunSubjectsTable;
  }
}
