// SQL belongs to the ledger (docs/architecture.md): outside src/main/ledger no file of main holds
// SQL text or calls the connection (prepare, exec, transaction, pragma), and no IPC handler
// reaches a repository: handlers call services (an import is resolved from the file that makes it,
// so '../../ledger/' from ipc/handlers/ counts as much as '../ledger/' from ipc/). The next database engine runs the same
// repositories, so anything that slipped past them would be left on the old one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN_SOURCES as main, sourceFiles as sources } from '../../helpers/source-files';

const outsideLedger = sources(main).filter((file) => !file.startsWith(path.join(main, 'ledger') + path.sep));
const SQL = /['"`]\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\s|\b(SELECT\s+(\*|DISTINCT\b|count\(|[a-z_]+(\.[a-z_*]+)?\s*(,|\bAS\b|\bFROM\b))|INSERT\s+(OR\s+\w+\s+)?INTO\b|DELETE\s+FROM\b|UPDATE\s+[a-z_]+\s+SET\b|CREATE\s+(TABLE|INDEX)\b|PRAGMA\b)/;
const CONNECTION_CALL = /\b(db|ledger|database)\s*\.\s*(prepare|exec|transaction|pragma|function|aggregate)\s*\(/;

const LEDGER = path.join(main, 'ledger');
/** Every module a source file imports or re-exports (static, type-only or dynamic), by its specifier. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** The imports of `source` (the text of `file`) that resolve into src/main/ledger, as written. */
function ledgerImports(file: string, source: string): string[] {
  return [...source.matchAll(SPECIFIER)]
    .map((match) => match[1] ?? '')
    .filter((specifier) => specifier.startsWith('.'))
    .filter((specifier) => {
      const target = path.resolve(path.dirname(file), specifier);
      return target === LEDGER || target.startsWith(LEDGER + path.sep);
    });
}

const offending = (pattern: RegExp, files: string[]) =>
  files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${path.relative(main, file)}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('SQL lives in src/main/ledger', () => {
  it('finds the files it checks', () => {
    expect(outsideLedger.length).toBeGreaterThan(50);
    expect(outsideLedger.some((file) => file.endsWith(path.join('services', 'payouts-batch', 'batch-service.ts')))).toBe(true);
  });

  it('no file outside it holds SQL text', () => {
    expect(offending(SQL, outsideLedger)).toEqual([]);
  });

  it('no file outside it calls the connection', () => {
    expect(offending(CONNECTION_CALL, outsideLedger)).toEqual([]);
  });

  it('no IPC handler reaches a repository or the connection', () => {
    const handlers = outsideLedger.filter((file) => file.startsWith(path.join(main, 'ipc') + path.sep));
    expect(handlers.length).toBeGreaterThan(5);
    expect(handlers.some((file) => file.startsWith(path.join(main, 'ipc', 'handlers') + path.sep))).toBe(true);
    expect(handlers.flatMap((file) => ledgerImports(file, readFileSync(file, 'utf8')).map((specifier) => `${path.relative(main, file)}: ${specifier}`))).toEqual([]);
  });

  it('an import into the ledger is caught from any depth, however it is written', () => {
    const handler = path.join(main, 'ipc', 'handlers', 'payments.ts');
    const caught = [
      "import { createRepositories } from '../../ledger/repositories/index';",
      "import type { Repositories } from '../../ledger/repositories';",
      "export { openLedger } from '../../ledger/connection';",
      "const { openLedger } = await import('../../ledger/connection');",
      'import type { Ledger } from "../../ledger";',
    ];
    for (const line of caught) expect(ledgerImports(handler, line), line).toHaveLength(1);
    expect(ledgerImports(path.join(main, 'ipc', 'dispatcher.ts'), "import type { Attempt } from '../ledger/repositories/attempts';")).toHaveLength(1);
    // The handler file named ledger, services that use the ledger, and packages are not the ledger.
    for (const line of ["import { ledgerHandlers } from './ledger';", "import type { LedgerViews } from '../../services/ledger-views/ledger-views';", "import Database from 'better-sqlite3';"]) {
      expect(ledgerImports(handler, line), line).toEqual([]);
    }
  });

  it('the patterns catch what they are for', () => {
    for (const line of ["db.prepare('SELECT value FROM settings WHERE key = ?')", 'SELECT * FROM payouts', 'INSERT OR IGNORE INTO x', "this.deps.db.transaction(() => {", "ledger.pragma('synchronous')"]) {
      expect(SQL.test(line) || CONNECTION_CALL.test(line), line).toBe(true);
    }
    for (const line of ['const key = runner.prepare(endpoint, body);', 'repos.transaction(() => answers.forEach(recordOne));', '// select the rows that fit']) {
      expect(SQL.test(line) || CONNECTION_CALL.test(line), line).toBe(false);
    }
  });
});
