/**
 * Notification routing: a `notice` from the app's own core becomes a native
 * notification with its title and body, and a click opens the dashboard at
 * that event; a daemon's notices stay with the daemon (it notifies itself).
 */
import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiEvent } from '../../main/api/types.js';
import { noticeRoute } from '../../main/app/dashboard-route.js';
import { enableNotifications } from '../../main/app/notifications.js';
import { FakeNotification, reset } from './fake-electron.js';
import { NOW, notice } from './fixtures.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

let events: EventEmitter<{ event: [ApiEvent] }>;
let owns: boolean;
const openDashboard = vi.fn();

function enable(platform: NodeJS.Platform = 'darwin') {
  return enableNotifications({
    subscribe: (listener) => {
      events.on('event', listener);
      return () => events.off('event', listener);
    },
    ownsCore: () => owns,
    openDashboard,
    platform,
  });
}

beforeEach(() => {
  reset();
  openDashboard.mockClear();
  events = new EventEmitter();
  owns = true;
});

describe('native notifications', () => {
  it('shows a notice from our own core with its title and body', () => {
    enable();
    events.emit('event', { type: 'notice', data: notice({ kind: 'restart_failed', severity: 'critical' }) });
    expect(FakeNotification.instances).toHaveLength(1);
    const shown = FakeNotification.instances[0];
    expect(shown?.options).toMatchObject({
      title: 'Gateway restarted after a 429 storm',
      body: 'The gateway is back and calls succeed again (recovered in 48 s).',
      silent: false,
    });
    expect(shown?.show).toHaveBeenCalledTimes(1);
  });

  it('opens the dashboard at the event when clicked', () => {
    enable();
    const breakerNotice = notice({ kind: 'breaker_opened', dep: 'zhipu/glm-5.1', ts: NOW, severity: 'warning' });
    events.emit('event', { type: 'notice', data: breakerNotice });
    expect(openDashboard).not.toHaveBeenCalled();
    FakeNotification.instances[0]?.emit('click');
    expect(openDashboard).toHaveBeenCalledWith(`view=errors&at=${NOW}&kind=breaker_opened&dep=zhipu%2Fglm-5.1`);
  });

  it('stays quiet for a daemon the app attached to (it notifies by itself), for other events, when unsupported', () => {
    enable();
    owns = false;
    events.emit('event', { type: 'notice', data: notice() });
    owns = true;
    events.emit('event', { type: 'calls', data: { count: 3, deps: ['a/b'] } });
    FakeNotification.supported = false;
    events.emit('event', { type: 'notice', data: notice() });
    expect(FakeNotification.instances).toHaveLength(0);
  });

  it('marks a critical notice urgent on Linux and recovery silent', () => {
    enable('linux');
    events.emit('event', { type: 'notice', data: notice({ kind: 'gateway_down', severity: 'critical' }) });
    events.emit('event', { type: 'notice', data: notice({ kind: 'gateway_up', severity: 'info' }) });
    expect(FakeNotification.instances.map((n) => [n.options.urgency, n.options.silent])).toEqual([
      ['critical', false],
      ['normal', true],
    ]);
  });

  it('stops when disabled', () => {
    const disable = enable();
    disable();
    events.emit('event', { type: 'notice', data: notice() });
    expect(FakeNotification.instances).toHaveLength(0);
  });
});

describe('dashboard routes', () => {
  it('sends restarts to the restart log, gateway events to the overview', () => {
    expect(noticeRoute(notice({ kind: 'restart_succeeded', ts: 5 }))).toBe('view=logs&at=5&kind=restart_succeeded');
    expect(noticeRoute(notice({ kind: 'gateway_down', ts: 6 }))).toBe('view=overview&at=6&kind=gateway_down');
  });
});
