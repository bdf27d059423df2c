// Runs against the real Secret Service that `npm test` starts (dbus-run-session + gnome-keyring).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/platform/keychain';
import { KeychainLockedError, KeychainUnavailableError } from '../../src/main/services/secret-store';
import { startPrivateKeyring } from '../helpers/private-keyring';
import { tempDir } from '../helpers/temp-dir';

describe('keychain secret store (real gnome-keyring)', () => {
  it('stores, reads back and deletes a secret', async () => {
    expect(process.env.DBUS_SESSION_BUS_ADDRESS, 'run the tests with `npm test`, which starts a keyring session').toBeTruthy();
    const store = new KeytarSecretStore(`PaydeskTest-${randomUUID()}`);
    expect((await store.status()).state).toBe('available');
    await store.set('profile-1/merchant-token', 'tok_sentinel_123');
    expect(await store.get('profile-1/merchant-token')).toBe('tok_sentinel_123');
    expect(await store.delete('profile-1/merchant-token')).toBe(true);
    expect(await store.get('profile-1/merchant-token')).toBeNull();
  });
});

describe('keychain unreachable', () => {
  it('says so clearly, refuses to store, and writes nothing in plaintext', () => {
    const { dir, cleanup } = tempDir();
    try {
      const script = `
        import { KeytarSecretStore } from './src/main/platform/keychain.ts';
        const store = new KeytarSecretStore('PaydeskTest');
        const status = await store.status();
        let setError = null;
        try { await store.set('p/merchant-token', 'tok_plaintext_sentinel'); } catch (e) { setError = { name: e.name, message: e.message }; }
        console.log(JSON.stringify({ status, setError }));
      `;
      const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: path.resolve(__dirname, '../..'),
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, DBUS_SESSION_BUS_ADDRESS: `unix:path=${dir}/no-bus` },
        timeout: 20_000,
      });
      const output = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
        status: { state: string; message: string };
        setError: { name: string; message: string } | null;
      };
      expect(output.status.state).toBe('unavailable');
      expect(output.status.message).toMatch(/keychain is not reachable/);
      expect(output.setError?.name).toBe(new KeychainUnavailableError('x').name);
      expect(output.setError?.message).toMatch(/stored nothing/);
      const everything = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      for (const entry of everything) {
        expect(readFileSync(path.join(entry.parentPath, entry.name), 'utf8')).not.toContain('tok_plaintext_sentinel');
      }
    } finally {
      cleanup();
    }
  });
});

/** Runs the real KeytarSecretStore in a child on another D-Bus session (the keyring under test). */
function storeInChild(env: Record<string, string>, service: string): { status: { state: string; message: string }; setError: { name: string; message: string } | null; readBack: string | null } {
  const script = `
    import { KeytarSecretStore } from './src/main/platform/keychain.ts';
    const store = new KeytarSecretStore(${JSON.stringify(service)});
    const status = await store.status();
    let setError = null;
    try { await store.set('p/merchant-token', 'tok_locked_sentinel'); } catch (e) { setError = { name: e.name, message: e.message }; }
    const readBack = await store.get('p/merchant-token');
    console.log(JSON.stringify({ status, setError, readBack }));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8', env, timeout: 30_000 });
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as ReturnType<typeof storeInChild>;
}

describe('keychain locked (a real gnome-keyring, locked over D-Bus)', () => {
  it('reports locked (not available) with how to unlock, refuses to store, and is available again once unlocked', { timeout: 60_000 }, async () => {
    const keyring = await startPrivateKeyring();
    try {
      const service = `PaydeskTest-${randomUUID()}`;
      expect(storeInChild(keyring.env, service)).toMatchObject({ status: { state: 'available' }, setError: null, readBack: 'tok_locked_sentinel' });

      await keyring.lock();
      expect(await keyring.locked()).toBe(true);
      const locked = storeInChild(keyring.env, service);
      expect(locked.status.state).toBe('locked');
      expect(locked.status.message).toMatch(/keychain is locked \(Cannot create an item in a locked collection\)/);
      expect(locked.status.message).toMatch(/log in to the desktop session/);
      expect(locked.status.message).toContain('gnome-keyring-daemon --replace --unlock');
      expect(locked.setError).toEqual({ name: new KeychainLockedError('x').name, message: expect.stringMatching(/locked.*stored nothing.*gnome-keyring-daemon --replace --unlock/s) });
      // A locked collection reads as empty: why the status must come from a write.
      expect(locked.readBack).toBeNull();

      // The unlock the message describes, done as a user without a desktop would.
      await keyring.unlock();
      expect(await keyring.locked()).toBe(false);
      expect(storeInChild(keyring.env, service)).toMatchObject({ status: { state: 'available' }, setError: null, readBack: 'tok_locked_sentinel' });
    } finally {
      await keyring.stop();
    }
  });
});
