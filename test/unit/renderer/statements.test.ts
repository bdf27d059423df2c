// The statements screen's words: an empty break queue says what its emptiness means in a sentence
// (not "no not settled"), a file's size is never "0 KB", and an empty or oversized file is refused in words.
import { describe, expect, it } from 'vitest';
import { BREAK_QUEUES } from '../../../src/renderer/features/reconciliation/statements/break-queues';
import { fileRefusal, fileSizeText } from '../../../src/renderer/features/reconciliation/statements/file-size';

describe('the statements screen', () => {
  it('says what each empty queue means, in a sentence of its own', () => {
    for (const { label, empty } of BREAK_QUEUES) {
      expect(empty, label).toMatch(/^[A-Z].*\.$/);
      expect(empty.toLowerCase(), label).not.toContain(`no ${label.toLowerCase()}`);
    }
  });

  it('gives a small file its bytes, and a large one KB or MB', () => {
    expect(fileSizeText(492)).toBe('492 bytes');
    expect(fileSizeText(1)).toBe('1 byte');
    expect(fileSizeText(512 * 1024)).toBe('512 KB');
    expect(fileSizeText(200 * 1024 * 1024)).toBe('200 MB');
  });

  it('refuses an empty file and one over the limit before uploading, saying why', () => {
    const limit = 200 * 1024 * 1024;
    expect(fileRefusal({ name: 'bank.csv', size: 0 }, limit)).toBe('bank.csv is empty: there is nothing in it to import. Export the statement again, or pick another file.');
    expect(fileRefusal({ name: 'big.csv', size: limit + 1 }, limit)).toBe('big.csv is just over 200 MB: a statement file may be at most 200 MB. Split it by date and import the parts.');
    expect(fileRefusal({ name: 'bigger.csv', size: limit * 1.5 }, limit)).toBe('bigger.csv is 300 MB: a statement file may be at most 200 MB. Split it by date and import the parts.');
    expect(fileRefusal({ name: 'ok.csv', size: 10 }, limit)).toBeNull();
  });
});
