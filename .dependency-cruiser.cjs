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
      name: 'kernel-is-the-core',
      comment: 'The kernel holds ports and the core; the platform and the adapters build on it, never the reverse.',
      severity: 'error',
      from: { path: '^src/kernel/', pathNot: notTest },
      to: { path: '^src/(platform|adapters)/' },
    },
    {
      name: 'platform-is-feature-agnostic',
      comment: 'The shared services (HTTP edge plugins, crypto, personal data, projection runtime) serve every slice.',
      severity: 'error',
      from: { path: '^src/platform/', pathNot: notTest },
      to: { path: '^(src/features|projections|src/adapters)/' },
    },
    {
      name: 'adapters-import-no-slice',
      comment: 'An adapter implements a port over one technology; it knows no slice and no read model.',
      severity: 'error',
      from: { path: '^src/adapters/', pathNot: notTest },
      to: { path: '^(src/features|projections)/' },
    },
    {
      name: 'adapters-chosen-by-the-composition-root',
      comment: 'Only the composition root picks adapters (src/adapters/load.ts, loaded with a dynamic import).',
      severity: 'error',
      from: { path: '^(src|projections)/', pathNot: [notTest, '^src/adapters/', '^src/(runtime|main|cli)\\.ts$'] },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'sdks-behind-adapters',
      comment: 'The clients of optional services load with their adapter only, so an unconfigured one is never loaded.',
      severity: 'error',
      from: { pathNot: [notTest, '^src/adapters/', '^(test|bench|scripts)/'] },
      to: {
        path: 'node_modules/(ioredis|@aws-sdk/client-s3|@eventstore/db-client|nodemailer|@electric-sql/pglite|pg)/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'slices-meet-at-their-surface',
      comment: 'A slice uses another only through its index.ts; events and shared records are in src/contracts.',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/', pathNot: notTest },
      to: {
        path: '^src/features/([^/]+)/',
        pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$'],
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
      name: 'read-models-see-contracts',
      comment: 'A read model knows the slices only by their contracts (events, stream names, shared records).',
      severity: 'error',
      from: { path: '^projections/', pathNot: notTest },
      to: { path: '^src/(features|adapters)/' },
    },
    {
      name: 'contracts-below-slices-and-read-models',
      comment: 'Contracts (src/contracts) sit under slices and read models: they import the kernel and platform only.',
      severity: 'error',
      from: { path: '^src/contracts/', pathNot: notTest },
      to: { path: '^(src/features|projections|src/adapters)/' },
    },
    {
      name: 'core-knows-no-contract',
      comment: 'The kernel and the platform serve every slice: no slice contract is theirs to know.',
      severity: 'error',
      from: { path: '^src/(kernel|platform)/', pathNot: notTest },
      to: { path: '^src/contracts/' },
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
    exclude: { path: '^(bench|scratch|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
