// The log as a machine reads it. One JSON object per line with time, level, message
// and the instance; inside a request its id and the person; the level option honoured; secrets
// blanked by pino's redact where they stand as fields, and masked in free text (a card number, a
// bearer token, a password in a database address) where a message or an error carries them.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withLogContext } from '../../../src/main/log-context';
import { jsonLogger, type LogLevel } from '../../../src/main/logger';

function captured(level: LogLevel = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const log = jsonLogger({ name: 'paydesk-test', level, destination });
  return { log, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const PAN = '4532015112830366';
const CVV = '8472';

describe('the JSON log', () => {
  it('writes one object per line: time, level, message, the instance once bound, and a request’s id and person', () => {
    const { log, parsed } = captured();
    log.info('starting');
    log.bind?.({ instance: 'instance-1' });
    withLogContext('req-abc', (context) => {
      log.info('before sign-in');
      context.setPerson('person-7');
      log.warn('inside the request');
    });
    log.debug?.('not at info');
    const [first, second, third, fourth] = parsed();
    expect(parsed()).toHaveLength(3);
    expect(first).toMatchObject({ level: 'info', msg: 'starting', name: 'paydesk-test', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(first).not.toHaveProperty('instance');
    expect(second).toMatchObject({ msg: 'before sign-in', instance: 'instance-1', reqId: 'req-abc' });
    expect(second).not.toHaveProperty('person');
    expect(third).toMatchObject({ level: 'warn', msg: 'inside the request', instance: 'instance-1', reqId: 'req-abc', person: 'person-7' });
    expect(fourth).toBeUndefined();
  });

  it('writes debug lines at level debug, and only errors at level error', () => {
    const debug = captured('debug');
    debug.log.debug?.('a detail');
    expect(debug.parsed()).toMatchObject([{ level: 'debug', msg: 'a detail' }]);
    const quiet = captured('error');
    quiet.log.info('said');
    quiet.log.warn('said');
    quiet.log.error('failed', new Error('boom'));
    expect(quiet.parsed()).toMatchObject([{ level: 'error', msg: 'failed', error: { type: 'Error', message: 'boom' } }]);
  });

  it('blanks secret fields by name (pino redact) and masks card numbers, tokens and passwords in free text', () => {
    const { log, lines } = captured();
    log.info('a request', { password: 'Sentinel-Password-1', token: 'tok_SENTINEL', headers: { authorization: 'Bearer abc.SENTINEL', cookie: 'paydesk_team=SENTINEL' }, body: { cardNumber: PAN, cvv: CVV, merchant_token: 'mt_SENTINEL' } });
    log.warn(`card ${PAN} refused, Authorization: Bearer eyJSENTINEL.part.two`);
    log.error('the ledger failed', new Error(`connect postgres://paydesk:Sentinel-Db-Pass@db:5432/paydesk failed for ${PAN}`));
    const text = lines.join('\n');
    for (const secret of ['Sentinel-Password-1', 'tok_SENTINEL', 'abc.SENTINEL', 'paydesk_team=SENTINEL', PAN, `"${CVV}"`, 'mt_SENTINEL', 'eyJSENTINEL', 'Sentinel-Db-Pass']) expect(text).not.toContain(secret);
    expect(text).toContain('453201******0366');
    expect(text).toContain('[redacted]');
  });
});
