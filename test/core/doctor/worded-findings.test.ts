/**
 * Every finding the doctor's checks make is worded from the catalogue (`words`), so the dashboard's Doctor view
 * and the CLI say it in the reader's language; the few that cannot be are an allow-list, each with its reason.
 * The Chinese wording of the worded ones carries no English sentence (commands in backticks aside: they are code).
 * Runs the checks that need no gateway (the gateway's own is probed on a port where nothing listens).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../../main/core/config/index.js';
import { checkBreakerbar, checkRoom } from '../../../main/core/doctor/breakerbar-check.js';
import { checkConfig } from '../../../main/core/doctor/config-check.js';
import { checkGateway } from '../../../main/core/doctor/gateway-check.js';
import { checkGatewayLog } from '../../../main/core/doctor/gateway-log-check.js';
import { checkNotifications } from '../../../main/core/doctor/notifications-check.js';
import { checkOpenClaw } from '../../../main/core/doctor/openclaw-check.js';
import { checkRestart } from '../../../main/core/doctor/restart-check.js';
import { checkSources } from '../../../main/core/doctor/sources-check.js';
import type { Finding } from '../../../main/core/doctor/types.js';
import { type Message, translator } from '../../../main/words/messages/index.js';
import { englishSentences } from '../../helpers/english-sentences.js';

const NOW = Date.UTC(2026, 11, 1, 10);

/**
 * The findings that stay in English, and why: their title is another module's own English line, shared with
 * the daemon's log, so there is no message to word it from (yet).
 */
const PLAIN: { area: Finding['area']; why: string; matches: (f: Finding) => boolean }[] = [
  {
    area: 'gateway',
    why: "a warning about the gateway's port or token: worded by openclaw/gateway-endpoint.ts",
    matches: (f) => f.level === 'warn' && /ignoring it|not set in BreakerBar's environment/.test(f.title),
  },
  {
    area: 'restart',
    why: "the gateway's service as launchd or systemd shows it: its summary, worded by gateway/control",
    matches: (f) => f.fix === undefined || /systemctl|kickstart/.test(f.fix),
  },
];

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-worded-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function environment(extra: NodeJS.ProcessEnv = {}): Environment {
  return {
    env: { PATH: join(tmp, 'bin'), BREAKERBAR_HOME: join(tmp, 'bbhome'), ...extra },
    home: join(tmp, 'home'),
    platform: 'linux',
  };
}

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Runs the checks on one config (or none), in the order the report does. */
async function findings(configFile: string | undefined, env = environment()): Promise<Finding[]> {
  const { loaded, findings: config } = checkConfig(configFile, env);
  const openclaw = checkOpenClaw(loaded, env);
  const timeouts = { connectTimeoutMs: 200, readTimeoutMs: 200 };
  return [
    ...config,
    ...openclaw.findings,
    ...(openclaw.stateDirUsable ? checkSources(loaded) : []),
    ...checkGatewayLog(loaded, env, openclaw.openclawConfig, NOW),
    ...(await checkGateway(loaded, env, timeouts)),
    ...(await checkRestart(loaded, env)),
    ...checkNotifications(loaded, env, NOW),
    ...(await checkBreakerbar(loaded, timeouts)),
    ...checkRoom(loaded.dataDir, () => 1024),
  ];
}

/** A fixture OpenClaw home with agents, transcripts and an openclaw.json, and a config using most options. */
function fullFixture(): string {
  const openclaw = join(tmp, 'openclaw');
  write(join(openclaw, 'agents', 'main', 'sessions', 'a.jsonl'), '{}\n');
  write(join(openclaw, 'agents', 'main', 'sessions', 'b.jsonl.reset.2026-01-01'), '{}\n');
  mkdirSync(join(openclaw, 'agents', 'empty'), { recursive: true });
  write(
    join(openclaw, 'openclaw.json'),
    JSON.stringify({
      gateway: { port: 9 },
      logging: { file: '/var/log/oc/openclaw.log' },
      agents: { defaults: { model: { primary: 'zai/glm-5', fallbacks: ['x'] } } },
    }),
  );
  write(join(tmp, 'logs', 'openclaw-work-2026-01-01.log'), '{}\n');
  write(join(tmp, 'logs', 'openclaw-other-2026-01-01.log'), '{}\n');
  const relative = write(join(tmp, 'bin', 'restart-gw'), '#!/bin/sh\nexit 0\n');
  chmodSync(relative, 0o755);
  return write(
    join(tmp, 'config.json'),
    JSON.stringify({
      openclawDir: openclaw,
      dataDir: join(tmp, 'data'),
      gatewayLogDir: join(tmp, 'logs'),
      gatewayUrl: 'http://127.0.0.1:9',
      profile: 'work',
      watchdog: { restartCommand: ['bin/restart-gw', '--now'] },
      heartbeat: { url: 'https://hc-ping.com/SECRET-UUID', kind: 'healthchecks', intervalSec: 60 },
      notifications: {
        desktop: true,
        webhooks: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/x', events: ['breaker_opened'] }],
      },
    }),
  );
}

function unworded(all: readonly Finding[]): Finding[] {
  return all.filter((f) => f.words === undefined && !PLAIN.some((p) => p.area === f.area && p.matches(f)));
}

const zh = translator('zh-CN');

/** The Chinese wording of a finding's worded parts, commands in backticks taken out. */
function chinese(f: Finding): string[] {
  const w = f.words;
  if (!w) return [];
  // push, not an array literal: one of several Messages makes the compiler reduce the whole union (TS2590).
  const parts: Message[] = [w.title];
  if (w.detail) parts.push(w.detail);
  if (w.fix) parts.push(w.fix);
  return parts.map((m) => zh.say(m).replace(/`[^`]*`/g, ''));
}

describe('doctor findings worded from the catalogue', () => {
  const cases: [string, () => string | undefined, NodeJS.ProcessEnv?][] = [
    ['no config file, no OpenClaw home', () => undefined],
    ['a config with agents, a profile, a relative restart command, a webhook and a heartbeat', fullFixture],
    ['a config that cannot be used', () => write(join(tmp, 'config.json'), '{ "watchdog": { "enabled": 7 } }')],
    [
      'an OpenClaw home that is a file and an unreadable openclaw.json',
      () => {
        write(join(tmp, 'openclaw'), 'not a directory');
        return write(
          join(tmp, 'config.json'),
          JSON.stringify({ openclawDir: join(tmp, 'openclaw'), gatewayUrl: 'http://127.0.0.1:9' }),
        );
      },
    ],
  ];

  for (const [name, configFile, extra] of cases) {
    it(`${name}: every finding has words, or is on the allow-list`, async () => {
      const all = await findings(configFile(), environment(extra));
      expect(all.length).toBeGreaterThan(3);
      expect(unworded(all).map((f) => `${f.area}: ${f.title}`)).toEqual([]);
    });

    it(`${name}: the Chinese wording has no English sentence`, async () => {
      const all = await findings(configFile(), environment(extra));
      expect(all.flatMap((f) => chinese(f).flatMap(englishSentences))).toEqual([]);
    });
  }

  it('keeps the English where it was: title, detail and fix are the English wording of the words', async () => {
    const en = translator('en');
    for (const f of await findings(fullFixture())) {
      if (!f.words) continue;
      expect(en.say(f.words.title)).toBe(f.title);
      if (f.words.detail) expect(en.say(f.words.detail)).toBe(f.detail);
      if (f.words.fix) expect(en.say(f.words.fix)).toBe(f.fix);
    }
  });
});
