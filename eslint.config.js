import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'scratch/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
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
    // Slices talk through events and the query functions their index exports.
    files: ['src/features/**/*.ts', 'projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/features/*/*.decider*', '**/features/*/http/**', '**/*.table*'] },
      ],
    },
  },
);
