// The lint rule that keeps Electron out of shared code and services is part of the architecture:
// prove it fires (and does not fire where Electron belongs) with the project's real ESLint config.
import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
// The files linted here do not exist, so the type-aware rules (which need them in the project) are
// left out; the import rules under test need no types.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off', '@typescript-eslint/await-thenable': 'off' },
  },
});

async function restrictedImportErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it('refuses electron in src/shared, services, ledger and the emulator', async () => {
    for (const file of ['src/shared/x.ts', 'src/main/services/x.ts', 'src/main/ledger/x.ts', 'src/emulator/x.ts', 'src/main/gateway/x.ts']) {
      const errors = await restrictedImportErrors(file, "import { app } from 'electron';\nexport const a = app;\n");
      expect(errors, file).toHaveLength(1);
    }
  });

  it('refuses Node APIs in src/shared and keytar outside platform/', async () => {
    expect(await restrictedImportErrors('src/shared/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await restrictedImportErrors('src/main/services/x.ts', "import k from 'keytar';\nexport const a = k;\n")).toHaveLength(1);
  });

  it('allows electron in the Electron entry, security and the preload', async () => {
    for (const file of ['src/main/index.ts', 'src/main/security.ts', 'src/preload/index.ts']) {
      expect(await restrictedImportErrors(file, "import { app } from 'electron';\nexport const a = app;\n"), file).toEqual([]);
    }
  });
});
