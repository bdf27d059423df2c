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

  it('refuses a bad port and unknown options with a clear message', () => {
    expect(() => parseAppOptions(['--port', 'http'], {})).toThrow(/--port must be a whole number/);
    expect(() => parseAppOptions(['--bind', '0.0.0.0'], {})).toThrow(OptionsError);
  });
});
