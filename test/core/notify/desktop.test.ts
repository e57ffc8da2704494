import { describe, expect, it } from 'vitest';
import { createNodeNotifierChannel, type NotifierLike } from '../../../main/core/notify/desktop.js';
import type { Notice } from '../../../main/core/notify/notice.js';

const NOTICE: Notice = {
  kind: 'gateway_down',
  dep: null,
  title: 'Gateway down',
  body: 'The gateway stopped answering health checks 30 s ago.',
  severity: 'critical',
  ts: Date.UTC(2026, 0, 1),
  count: 1,
};

type Behaviour = 'ok' | 'error' | 'silent' | 'throw' | 'late';

/** A stand-in for node-notifier that records what it was asked. */
function fakeNotifier(behaviour: Behaviour) {
  const calls: Array<{ title: string; message: string; wait: boolean }> = [];
  /** Resolves once a late callback has been called (and returned). */
  let lateCalled = () => {};
  const late = new Promise<void>((resolve) => {
    lateCalled = resolve;
  });
  const notifier: NotifierLike = {
    notify(notification, callback) {
      calls.push(notification);
      if (behaviour === 'ok') setImmediate(() => callback(null, 'ok'));
      if (behaviour === 'error') setImmediate(() => callback(new Error("Couldn't find notify-send"), ''));
      if (behaviour === 'throw') throw new Error('spawn EACCES');
      if (behaviour === 'late')
        setTimeout(() => {
          callback(null, 'ok');
          lateCalled();
        }, 100);
      return undefined;
    },
  };
  return { calls, notifier, late };
}

describe('createNodeNotifierChannel', () => {
  it('passes title and message, does not wait for a click, resolves on the callback', async () => {
    const { calls, notifier } = fakeNotifier('ok');
    await expect(createNodeNotifierChannel({ notifier }).send(NOTICE)).resolves.toBeUndefined();
    expect(calls).toEqual([{ title: 'Gateway down', message: NOTICE.body, wait: false }]);
  });

  it('shortens long text for a bubble', async () => {
    const { calls, notifier } = fakeNotifier('ok');
    await createNodeNotifierChannel({ notifier }).send({ ...NOTICE, title: 't'.repeat(500), body: 'b'.repeat(5000) });
    expect(calls[0]?.title.length).toBeLessThanOrEqual(100);
    expect(calls[0]?.message.length).toBeLessThanOrEqual(300);
  });

  it('a callback error rejects with what to do about it (Linux)', async () => {
    const { notifier } = fakeNotifier('error');
    await expect(createNodeNotifierChannel({ notifier, platform: 'linux' }).send(NOTICE)).rejects.toThrow(
      "desktop notifications unavailable: Couldn't find notify-send; install libnotify-bin and run a notification daemon, or set notifications.desktop to false",
    );
  });

  it('elsewhere the hint is only how to turn them off', async () => {
    const { notifier } = fakeNotifier('error');
    const error = await createNodeNotifierChannel({ notifier, platform: 'darwin' })
      .send(NOTICE)
      .catch((err: Error) => err);
    expect(String(error)).toMatch(/unavailable: Couldn't find notify-send; set notifications.desktop to false/);
    expect(String(error)).not.toMatch(/libnotify/);
  });

  it('a callback that never comes rejects on the timeout', async () => {
    const { notifier } = fakeNotifier('silent');
    const started = Date.now();
    await expect(createNodeNotifierChannel({ notifier, timeoutMs: 50 }).send(NOTICE)).rejects.toThrow(
      'desktop notification timed out after 50 ms',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a late callback after the timeout changes nothing', async () => {
    const { notifier, late } = fakeNotifier('late');
    await expect(createNodeNotifierChannel({ notifier, timeoutMs: 20 }).send(NOTICE)).rejects.toThrow(/timed out/);
    // The late callback runs without throwing (nor an unhandled rejection, which fails the run).
    await late;
  });

  it('shows one at a time, in the order sent: the next helper starts once the one before it has answered', async () => {
    const callbacks: Array<() => void> = [];
    const titles: string[] = [];
    const notifier: NotifierLike = {
      notify(notification, callback) {
        titles.push(notification.title);
        callbacks.push(() => callback(null, 'ok'));
        return undefined;
      },
    };
    const channel = createNodeNotifierChannel({ notifier });
    const first = channel.send({ ...NOTICE, title: 'first' });
    const second = channel.send({ ...NOTICE, title: 'second' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(titles).toEqual(['first']);
    callbacks[0]?.();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(titles).toEqual(['first', 'second']);
    callbacks[1]?.();
    await expect(second).resolves.toBeUndefined();
  });

  it('one that fails or hangs does not hold the next for longer than its timeout', async () => {
    const { notifier, calls } = fakeNotifier('silent');
    const channel = createNodeNotifierChannel({ notifier, timeoutMs: 20 });
    const first = channel.send({ ...NOTICE, title: 'first' });
    const second = channel.send({ ...NOTICE, title: 'second' });
    await expect(first).rejects.toThrow(/timed out/);
    await expect(second).rejects.toThrow(/timed out/);
    expect(calls.map((c) => c.title)).toEqual(['first', 'second']);
  });

  it('a notifier that throws synchronously becomes a rejection, not a throw', async () => {
    const { notifier } = fakeNotifier('throw');
    const channel = createNodeNotifierChannel({ notifier, platform: 'linux' });
    let promise: Promise<void> | undefined;
    expect(() => {
      promise = channel.send(NOTICE);
    }).not.toThrow();
    await expect(promise).rejects.toThrow(/^desktop notifications unavailable: spawn EACCES; install libnotify-bin/);
  });
});
