import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'scratch/**', 'coverage/**', 'dist/**', 'studio/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Keys from requests, events and schemas never become plain-object keys (src/kernel/safe/keys.ts).
    files: ['src/**/*.ts', 'projections/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "AssignmentExpression[operator=/^(\\?\\?|\\|\\|)=$/][left.computed=true][right.type='ObjectExpression']",
          message:
            'Nested objects built from computed keys reach the prototype: use dict() or a Map (src/kernel/safe/keys.ts).',
        },
        {
          selector:
            "MemberExpression[computed=true][object.name=/^[A-Z][A-Z0-9_]+$/][property.type!='Literal'][property.type!='NumericLiteral']",
          message: 'A lookup table indexed by a variable finds inherited members: use own(TABLE, key) or a Map.',
        },
        {
          selector:
            "CallExpression[callee.object.name='Object'][callee.property.name='assign'][arguments.0.type='Identifier']",
          message:
            'Object.assign onto an existing object follows __proto__ setters: build a dict() or spread into a new object.',
        },
      ],
    },
  },
  {
    // Size limits: a long function or file is asking to be split into named steps. Route plugins list their
    // routes in one function, and tests keep their cases together, so both are exempt.
    files: ['src/**/*.ts', 'projections/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/features/**/http/*.routes.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // kernel/ is feature-agnostic: it never reaches into features/ or projections/.
    files: ['src/kernel/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/features/**', '**/projections/**'] }],
    },
  },
  {
    // The seams between slices and read models are checked by dependency-cruiser (.dependency-cruiser.cjs);
    // raw SQL belongs to read models (projections/<model>/*.queries.ts), never to a slice.
    files: ['src/features/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              importNames: ['sql'],
              message: 'Raw SQL belongs to a read model: add a query function to projections/<model>/ and export it.',
            },
          ],
        },
      ],
    },
  },
);
