// Prints one closing line for the whole `npm test` run, summed over the vitest JSON reports:
//   tests: N passed, N failed, N skipped
import { existsSync, readFileSync } from 'node:fs';

const reports = process.argv.slice(2).filter((file) => existsSync(file));
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of reports) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
