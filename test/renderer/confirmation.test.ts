/**
 * Rule: the dashboard in a browser answers the daemon's request for a confirmation code by asking the
 * person and sending the same change again with the code; it gives up on anything else, on a
 * dismissed prompt, and after a few refused codes. A malformed `confirm` off the network is ignored.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ConfigConfirmation } from '../../main/api/types.js';
import { ApiFailure } from '../../renderer/api.js';
import { type AskCode, confirmationOf, MAX_ASKS, NotConfirmed, saveConfirmed } from '../../renderer/confirmation.js';

const CONFIRM: ConfigConfirmation = {
  keys: ['watchdog.restartCommand'],
  changes: [{ key: 'watchdog.restartCommand', change: 'added', from: null, to: '"x"' }],
  expiresAt: 120_000,
};
const needsCode = new ApiFailure('needs confirming', 428, 'confirmCode', CONFIRM);
const wrongCode = new ApiFailure('wrong code', 403, 'confirmCode', { ...CONFIRM, expiresAt: null });

describe('confirmationOf', () => {
  it('reads a well-formed confirm, and nothing else', () => {
    expect(confirmationOf({ error: 'x', confirm: CONFIRM })).toEqual(CONFIRM);
    expect(confirmationOf({ error: 'x' })).toBeUndefined();
    expect(confirmationOf(null)).toBeUndefined();
    expect(confirmationOf({ confirm: { ...CONFIRM, keys: [1] } })).toBeUndefined();
    expect(
      confirmationOf({ confirm: { ...CONFIRM, changes: [{ key: 'k', change: 'exploded', from: null, to: null }] } }),
    ).toBeUndefined();
    expect(confirmationOf({ confirm: { ...CONFIRM, expiresAt: 'soon' } })).toBeUndefined();
  });
});

describe('saveConfirmed', () => {
  it('saves at once when no code is needed', async () => {
    const ask = vi.fn();
    expect(await saveConfirmed(async (code) => ({ saved: code }), ask)).toEqual({ saved: undefined });
    expect(ask).not.toHaveBeenCalled();
  });

  it('asks for the code and sends the same change again with it', async () => {
    const save = vi.fn(async (code: string | undefined) => {
      if (code !== '123456') throw needsCode;
      return 'saved';
    });
    const ask = vi.fn(async () => '123456');
    expect(await saveConfirmed(save, ask)).toBe('saved');
    expect(ask).toHaveBeenCalledWith(CONFIRM, false);
    expect(save.mock.calls).toEqual([[undefined], ['123456']]);
  });

  it('asks again after a refused code, saying so, and gives up after a few', async () => {
    const answers = ['111111', '222222'];
    const ask = vi.fn<AskCode>(async () => answers.shift() ?? '000000');
    const save = vi.fn(async (code: string | undefined) => {
      if (code === undefined) throw needsCode;
      if (code === '222222') return 'saved';
      throw wrongCode;
    });
    expect(await saveConfirmed(save, ask)).toBe('saved');
    expect(ask.mock.calls.map((call) => call[1])).toEqual([false, true]);

    const never = vi.fn(async (code: string | undefined) => {
      throw code === undefined ? needsCode : wrongCode;
    });
    await expect(saveConfirmed(never, async () => '999999')).rejects.toBe(wrongCode);
    expect(never).toHaveBeenCalledTimes(MAX_ASKS + 1);
  });

  it('throws a dismissed prompt and any other failure as they came', async () => {
    const dismissed = new NotConfirmed('no');
    await expect(
      saveConfirmed(
        async () => {
          throw needsCode;
        },
        async () => {
          throw dismissed;
        },
      ),
    ).rejects.toBe(dismissed);
    const other = new ApiFailure('bad key', 400, 'server.port');
    const throttled = new ApiFailure('too many', 429, 'confirmCode', CONFIRM);
    for (const failure of [other, throttled, new ApiFailure('no confirm', 428)]) {
      const ask = vi.fn();
      await expect(
        saveConfirmed(async () => {
          throw failure;
        }, ask),
      ).rejects.toBe(failure);
      expect(ask).not.toHaveBeenCalled();
    }
  });
});
