/**
 * The seams of the source tree (../shared/STYLE.md, docs/architecture.md), checked by `npm run lint`.
 * Tests may reach into their own slice; the rules hold for every other file.
 */
const notTest = '\\.test\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'kernel-is-feature-agnostic',
      comment: 'The kernel serves every slice: it imports no feature and no read model.',
      severity: 'error',
      from: { path: '^src/kernel/', pathNot: notTest },
      to: { path: '^(src/features|projections)/' },
    },
    {
      name: 'slices-meet-at-their-surface',
      comment: 'A slice uses another only through its index.ts (commands, queries, types) or its events.',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/', pathNot: notTest },
      to: {
        path: '^src/features/([^/]+)/',
        pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$', '^src/features/[^/]+/[^/]+\\.events\\.ts$'],
      },
    },
    {
      name: 'read-models-through-their-index',
      comment: 'A slice reads a read model only through the query functions its index.ts exports.',
      severity: 'error',
      from: { path: '^src/', pathNot: [notTest, '^src/kernel/'] },
      to: { path: '^projections/', pathNot: '^projections/[^/]+/index\\.ts$' },
    },
    {
      name: 'read-models-see-events-and-types',
      comment: 'A read model knows the slices only by their events and shared types.',
      severity: 'error',
      from: { path: '^projections/', pathNot: notTest },
      to: { path: '^src/features/', pathNot: '\\.(events|types)\\.ts$' },
    },
    {
      name: 'read-models-apart',
      comment: 'A read model uses another one only through its index.ts.',
      severity: 'error',
      from: { path: '^projections/([^/]+)/', pathNot: notTest },
      to: { path: '^projections/([^/]+)/', pathNot: ['^projections/$1/', '^projections/[^/]+/index\\.ts$'] },
    },
    {
      name: 'kernel-no-cycles',
      comment: 'The kernel is layered: no module of it leans on another that leans back, not even for a type.',
      severity: 'error',
      from: { path: '^src/kernel/', pathNot: notTest },
      to: { path: '^src/kernel/', circular: true },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle makes load order matter and the slices inseparable.',
      severity: 'error',
      from: { pathNot: notTest },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|bench|scratch|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
