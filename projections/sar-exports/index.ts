/** The public surface of the sar-exports read model: a site's subject-access exports still kept, for pruning. */
export { sarExportsProjector } from './sar-exports.projector.ts';
export { exportsMadeBefore, exportsOfSubject, type KeptExport } from './sar-exports.queries.ts';
