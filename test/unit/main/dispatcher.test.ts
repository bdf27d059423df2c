import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, type Handlers } from '../../../src/main/ipc/dispatcher';
import { MAX_MESSAGE_LENGTH, ServiceError } from '../../../src/main/services/errors';

/** Only the channels these tests call; the dispatcher never touches the others. */
function handlers(overrides: Partial<Handlers> = {}): Handlers {
  const subset: Partial<Handlers> = {
    'app:get-info': () => {
      throw new Error('not used');
    },
    'settings:get': () => ({ theme: 'dark', reconciliationPendingMinutes: 60 }),
    'settings:update': (patch) => ({ theme: patch.theme ?? 'auto', reconciliationPendingMinutes: patch.reconciliationPendingMinutes ?? 60 }),
    ...overrides,
  };
  return subset as Handlers;
}

describe('contract dispatcher', () => {
  it('passes a valid input to the handler and wraps its result', async () => {
    const dispatch = createDispatcher(handlers(), vi.fn());
    await expect(dispatch('settings:update', { theme: 'light' })).resolves.toEqual({ ok: true, value: { theme: 'light', reconciliationPendingMinutes: 60 } });
  });

  it('refuses an invalid input with an error naming the field, without calling the handler', async () => {
    const update = vi.fn();
    const dispatch = createDispatcher(handlers({ 'settings:update': update }), vi.fn());
    const result = await dispatch('settings:update', { theme: 'purple' });
    expect(update).not.toHaveBeenCalled();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_input');
    expect(Object.keys(result.error.fields ?? {})).toEqual(['theme']);
    expect(result.error.message).toContain('theme');
  });

  it('refuses unknown keys, since a renderer could send anything', async () => {
    const dispatch = createDispatcher(handlers(), vi.fn());
    const result = await dispatch('settings:update', { theme: 'dark', admin: true });
    expect(result.ok).toBe(false);
  });

  it('keeps the refusal readable when a hostile input holds thousands of unknown keys or bad fields', async () => {
    const dispatch = createDispatcher(handlers(), vi.fn());
    const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 'x']));
    const keys = await dispatch('settings:update', { theme: 'dark', ...manyKeys });
    expect(keys.ok).toBe(false);
    if (keys.ok) return;
    expect(keys.error.message).toMatch(/^Not accepted: \(input\): Unrecognized keys: "k0", "k1", .*…\.$/);
    // Shown on a screen: no channel name in it.
    expect(keys.error.message).not.toContain('settings:update');
    expect(keys.error.message.length).toBeLessThan(400);
    const manyFields = await dispatch('batches:add-items', { id: 1, items: Array.from({ length: 50 }, () => ({ line: 'x', form: 1 })) });
    expect(manyFields.ok).toBe(false);
    if (manyFields.ok) return;
    const count = Object.keys(manyFields.error.fields ?? {}).length;
    expect(count).toBeGreaterThan(20);
    expect(manyFields.error.message).toContain(`; and ${count - 20} more fields`);
    expect(manyFields.error.message.split('; ')).toHaveLength(21);
  });

  it('refuses, without calling the handler, an input on which the validator itself throws', async () => {
    const list = vi.fn();
    const internal = vi.fn();
    const dispatch = createDispatcher(handlers({ 'payouts:list': list }), internal);
    // Reachable over web mode's JSON: a "length" with no primitive value reaches zod's length check.
    const hostile: unknown = JSON.parse('{"search":{"length":{"valueOf":1,"toString":1}}}');
    const result = await dispatch('payouts:list', hostile);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', fields: { '(input)': expect.stringContaining('not a value this call accepts') } } });
    expect(list).not.toHaveBeenCalled();
    expect(internal).not.toHaveBeenCalled();
  });

  it('refuses a channel that is not in the contract', async () => {
    const dispatch = createDispatcher(handlers(), vi.fn());
    const result = await dispatch('fs:read-file', '/etc/passwd');
    expect(result).toEqual({ ok: false, error: { code: 'unknown_channel', message: 'Unknown channel "fs:read-file".' } });
  });

  it('refuses prototype keys posing as channels', async () => {
    const dispatch = createDispatcher(handlers(), vi.fn());
    const result = await dispatch('constructor', undefined);
    expect(result.ok).toBe(false);
  });

  it('passes expected service errors through as they are', async () => {
    const dispatch = createDispatcher(
      handlers({
        'settings:get': () => {
          throw new ServiceError('unavailable', 'Keychain locked.');
        },
      }),
      vi.fn(),
    );
    await expect(dispatch('settings:get', undefined)).resolves.toEqual({ ok: false, error: { code: 'unavailable', message: 'Keychain locked.' } });
  });

  it('clips a service error that quotes a huge input, so the answer stays small', async () => {
    const id = 'x'.repeat(50_000);
    const dispatch = createDispatcher(
      handlers({
        'settings:get': () => {
          throw new ServiceError('not_found', `No profile with id ${id}.`);
        },
      }),
      vi.fn(),
    );
    const answer = await dispatch('settings:get', undefined);
    expect(answer.ok).toBe(false);
    const message = answer.ok ? '' : answer.error.message;
    expect(message).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(message.startsWith('No profile with id xxx')).toBe(true);
    expect(message.endsWith('…')).toBe(true);
  });

  it('hides the text of unexpected errors from the renderer and reports them to main', async () => {
    const onInternal = vi.fn();
    const dispatch = createDispatcher(
      handlers({
        'settings:get': () => {
          throw new Error('SQLITE_CORRUPT at /secret/path');
        },
      }),
      onInternal,
    );
    const result = await dispatch('settings:get', undefined);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).not.toContain('/secret/path');
    expect(onInternal).toHaveBeenCalledOnce();
  });
});
