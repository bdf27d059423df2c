// What a keychain failure means, from the backend's own words: locked (unlock it, said how) or not
// reachable at all. The messages are shown whole in Settings, so none may reach the 500-character clip.
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_LENGTH } from '../../../src/main/services/errors';
import { KeychainLockedError, keychainError, KeychainUnavailableError, unlockHint } from '../../../src/main/services/secret-store';

describe('keychain failures', () => {
  it.each([
    ['gnome-keyring, collection locked', 'Cannot create an item in a locked collection'],
    ['gnome-keyring, no login keyring yet', 'Object does not exist at path “/org/freedesktop/secrets/collection/login”'],
    ['macOS, keychain locked', 'User interaction is not allowed.'],
  ])('reads %s as locked, with how to unlock, unclipped', (_label, detail) => {
    const error = keychainError(detail);
    expect(error).toBeInstanceOf(KeychainLockedError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(`locked (${detail})`);
    expect(error.message).toContain(unlockHint());
    expect(error.message.length).toBeLessThan(MAX_MESSAGE_LENGTH);
  });

  it.each([
    ['no D-Bus session', 'Cannot autolaunch D-Bus without X11 $DISPLAY'],
    ['no answer', 'no answer within 3000 ms'],
  ])('reads %s as unavailable', (_label, detail) => {
    const error = keychainError(detail);
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect(error.message).toContain(`not reachable (${detail})`);
  });

  it('tells to restart Paydesk when the keychain daemon was replaced under it', () => {
    const error = keychainError('The session wrapping the secret does not exist');
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect(error.message).toMatch(/restarted since Paydesk connected to it: restart Paydesk/);
  });

  it('says how to unlock on each desktop platform', () => {
    expect(unlockHint('linux')).toContain('gnome-keyring-daemon --replace --unlock');
    expect(unlockHint('darwin')).toContain('Keychain Access');
    expect(unlockHint('win32')).toMatch(/sign in/);
  });
});
