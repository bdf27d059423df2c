// Lint rules that keep each file in its world (STYLE.md): electron only where Electron runs,
// keytar only in platform/, nothing Node- or DOM-specific in src/shared.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const electronOnly = {
  name: 'electron',
  message: 'Electron may be imported only by src/main/index.ts, security.ts, ipc/electron-ipc.ts and the preload; services, shared code and the emulator must run without it.',
};
const keytarOnly = { name: 'keytar', message: 'keytar is imported only in src/main/platform/ (behind the SecretStore interface).' };

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'bench/results/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [electronOnly, keytarOnly] }],
    },
  },
  {
    files: ['src/main/index.ts', 'src/main/security.ts', 'src/main/ipc/electron-ipc.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [keytarOnly] }] },
  },
  {
    // Tests check the keychain directly to prove where secrets went.
    files: ['src/main/platform/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [electronOnly] }] },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronOnly, keytarOnly],
          patterns: [{ group: ['node:*', 'fs', 'path', 'http', 'crypto', 'better-sqlite3'], message: 'src/shared is plain TypeScript: no Node, Electron or DOM APIs.' }],
        },
      ],
    },
  },
  {
    // A promise nobody awaits is a write nobody waits for (the ledger is asynchronous): type-aware.
    files: ['src/main/**/*.ts', 'src/emulator/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
