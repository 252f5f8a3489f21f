import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'cdk.out/**', 'layers/images/bundle/**', 'node_modules/**', '.polyeval/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='it'][callee.property.name=/^(only|skip)$/]", message: 'no focused or skipped tests' },
      ],
    },
  },
  {
    // Type-aware rules (the TypeScript program's types, through the project service): a promise
    // nobody awaits loses its error and can outlive the run that started it.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: ['layers/core/report/browser/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
  },
  {
    // Scripts the HTML reports embed as text: they run in a browser page, not in Node.
    files: ['layers/core/report/browser/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        ['document', 'location', 'history', 'atob', 'Blob', 'Response', 'DecompressionStream', 'requestAnimationFrame', 'setTimeout'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
);
