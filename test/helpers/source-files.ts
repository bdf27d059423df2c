// The TypeScript sources below a folder, for the tests that read main's code as text (the SQL
// boundary, the one table of transaction kinds).
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** src/main, where those tests look. */
export const MAIN_SOURCES = path.resolve(__dirname, '../../src/main');

/** Every .ts file below `dir`, at any depth. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}
