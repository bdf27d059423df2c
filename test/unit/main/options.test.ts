import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionsError, parseAppOptions } from '../../../src/main/options';
import { defaultDataDir } from '../../../src/main/platform/paths';

describe('app options', () => {
  it('takes the data directory from --data-dir first', () => {
    expect(parseAppOptions(['--data-dir', '/tmp/a'], { PAYDESK_DATA_DIR: '/tmp/b' }).dataDir).toBe('/tmp/a');
  });

  it('falls back to PAYDESK_DATA_DIR, then to the platform folder', () => {
    expect(parseAppOptions([], { PAYDESK_DATA_DIR: '/tmp/b' }).dataDir).toBe('/tmp/b');
    expect(parseAppOptions([], { XDG_CONFIG_HOME: '/tmp/xdg' }).dataDir).toBe(defaultDataDir({ XDG_CONFIG_HOME: '/tmp/xdg' }));
  });

  it('uses Electron-compatible defaults per platform', () => {
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe(path.join('/x', 'Paydesk'));
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toContain('Paydesk');
  });

  it('reads --web and --port', () => {
    expect(parseAppOptions(['--web', '--port', '8123'], {})).toMatchObject({ web: true, port: 8123 });
  });

  it('keeps the ledger in SQLite unless a PostgreSQL URL is given', () => {
    expect(parseAppOptions([], {}).database).toBeUndefined();
    // An empty variable is no choice (as PAYDESK_DATA_DIR).
    expect(parseAppOptions([], { PAYDESK_DATABASE_URL: '' }).database).toBeUndefined();
  });

  it('takes the PostgreSQL ledger from --database first, else from PAYDESK_DATABASE_URL', () => {
    const env = { PAYDESK_DATABASE_URL: 'postgres://team@db.example.com:5432/paydesk' };
    expect(parseAppOptions([], env).database).toBe('postgres://team@db.example.com:5432/paydesk');
    expect(parseAppOptions(['--database', 'postgresql://me@127.0.0.1/desk'], env).database).toBe('postgresql://me@127.0.0.1/desk');
    expect(parseAppOptions(['--database', 'postgres://me@127.0.0.1/desk'], {}).database).toBe('postgres://me@127.0.0.1/desk');
  });

  it('refuses a database address that is not a PostgreSQL URL, from the option or the variable', () => {
    expect(() => parseAppOptions(['--database', '/tmp/ledger.sqlite'], {})).toThrow(/--database takes a PostgreSQL URL/);
    expect(() => parseAppOptions([], { PAYDESK_DATABASE_URL: 'mysql://team@db/paydesk' })).toThrow(OptionsError);
  });

  it('refuses a bad port and unknown options with a clear message', () => {
    expect(() => parseAppOptions(['--port', 'http'], {})).toThrow(/--port must be a whole number/);
    expect(() => parseAppOptions(['--bind', '0.0.0.0'], {})).toThrow(OptionsError);
  });
});
