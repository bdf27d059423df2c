// docs/emulator.md is the emulator's contract for testers: it must keep covering every code,
// every error_code and every CLI option that the code has.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ERROR_CODES, VALIDATION_ERROR_CODES } from '../../src/emulator/index';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../src/shared/spec/codes';

const doc = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8');
const cli = readFileSync(new URL('../../src/emulator/cli.ts', import.meta.url), 'utf8');

describe('docs/emulator.md', () => {
  test('the scenario tables have a row for every code of 3.1 and 3.2', () => {
    for (const c of [...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE]) expect(doc).toMatch(new RegExp(`^\\| ${c.code} \\| .+ \\|$`, 'm'));
  });

  test('the error_code table lists every error_code the emulator can answer', () => {
    for (const [code] of Object.values(ERROR_CODES)) expect(doc).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    for (const code of Object.values(VALIDATION_ERROR_CODES)) expect(doc).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  test('every CLI option is documented', () => {
    const options = [...cli.matchAll(/^ {2}'?([a-z-]+)'?: \{ type:/gm)].map((m) => m[1]);
    expect(options.length).toBeGreaterThan(10);
    for (const o of options) expect(doc).toContain(`--${o}`);
  });
});
