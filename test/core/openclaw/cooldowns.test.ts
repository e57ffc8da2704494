/**
 * The reader of OpenClaw's cooldown state: the databases where OpenClaw keeps
 * it (every agent database, and 2026.9's shared state database), read only
 * when they changed, merged, and every problem kept in the status instead of
 * thrown. The captured state of real gateway runs is replayed against
 * OpenClaw's own `models status` answer.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OpenClawCooldown } from '../../../main/core/openclaw/cooldown-state.js';
import { OpenClawCooldowns } from '../../../main/core/openclaw/cooldowns.js';
import type { LogFields, Logger } from '../../../main/core/runtime/log.js';
import {
  type AuthStateWriter,
  agentAuthDatabase,
  profileStore,
  sharedAuthDatabase,
} from '../../helpers/openclaw-auth-state.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const NOW = 1_796_145_470_000;
const MIN = 60_000;

class KeptLog implements Logger {
  readonly lines: Array<{ level: string; msg: string; fields?: LogFields }> = [];
  debug(msg: string, fields?: LogFields) {
    this.lines.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: LogFields) {
    this.lines.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: LogFields) {
    this.lines.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: LogFields) {
    this.lines.push({ level: 'error', msg, fields });
  }
}

let stateDir: string;
let writers: AuthStateWriter[];
let log: KeptLog;
let now: number;
let opens: string[];

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'bb-cooldowns-'));
  writers = [];
  log = new KeptLog();
  now = NOW;
  opens = [];
});

afterEach(() => {
  for (const writer of writers) writer.close();
  rmSync(stateDir, { recursive: true, force: true });
});

function reader(dir = stateDir): OpenClawCooldowns {
  return new OpenClawCooldowns({
    stateDir: dir,
    log,
    clock: () => now,
    openDatabase: (path) => {
      opens.push(path);
      return new Database(path, { readonly: true, fileMustExist: true });
    },
  });
}

function keep(writer: AuthStateWriter): AuthStateWriter {
  writers.push(writer);
  return writer;
}

const rateLimited = (until: number) => ({
  version: 1,
  usageStats: {
    'zai:default': { cooldownUntil: until, cooldownReason: 'rate_limit', cooldownModel: 'glm-5.1', errorCount: 1 },
  },
});

describe('OpenClawCooldowns reading real captured state', () => {
  interface Captured {
    openclawNow: number;
    unusableProfiles: Array<{ profileId: string; kind: string; reason?: string; until: number }>;
  }
  for (const version of ['2026.9.6', '2026.7.1']) {
    const dir = join(FIXTURES, `openclaw-${version}`, 'cooldowns');
    it(`lists for openclaw ${version} exactly what its own \`models status\` listed`, () => {
      const captured = JSON.parse(readFileSync(join(dir, 'models-status.json'), 'utf8')) as Captured;
      now = captured.openclawNow;
      const cooldowns = reader(dir);
      cooldowns.poll();
      expect(cooldowns.status(now).databases.every((db) => db.error === null)).toBe(true);
      // 2026.7's status gives a reason for disables only (its disabledReason): reasons compare where it gives one.
      const gives = new Map(captured.unusableProfiles.map((u) => [u.profileId, u.reason !== undefined]));
      const mine = Object.entries(byProfile(cooldowns.cooldowns(now))).map(([profile, entry]) => [
        profile,
        gives.get(profile) === false ? { ...entry, reason: null } : entry,
      ]);
      expect(captured.unusableProfiles.map((u) => u.profileId).sort()).toEqual(['mockbill:manual', 'mockrl:manual']);
      expect(Object.fromEntries(mine)).toEqual(
        Object.fromEntries(
          captured.unusableProfiles.map((u) => [
            u.profileId,
            { until: u.until, kind: u.kind, reason: u.reason ?? null },
          ]),
        ),
      );
      // The 429s were on mockrl/storm: the window is scoped to that model, on the profile pasted for mockrl.
      expect(cooldowns.cooldowns(now).find((c) => c.profile === 'mockrl:manual')).toMatchObject({
        dep: 'mockrl/storm',
        kind: 'cooldown',
        reason: 'rate_limit',
      });
      expect(cooldowns.cooldownUntil('mockrl/storm', now)).not.toBeNull();
    });
  }

  it('finds what 2026.9 records for an API key written inline in openclaw.json in the agent database', () => {
    const dir = join(FIXTURES, 'openclaw-2026.9.6', 'cooldowns');
    const cooldowns = reader(dir);
    cooldowns.poll();
    // The 401 of mockauth, whose key is inline (no profile): a 30 s auth cooldown, over by the time of the status.
    const usage = cooldowns.snapshot().usage.find((u) => u.profile === 'inline-api-key:mockauth');
    expect(usage).toMatchObject({ provider: 'mockauth', errorCount: 1, failureCounts: { auth: 1 } });
    const during = (usage?.lastFailureAt ?? 0) + 1000;
    expect(cooldowns.cooldowns(during).find((c) => c.provider === 'mockauth')).toMatchObject({
      dep: 'mockauth',
      kind: 'cooldown',
      reason: 'auth',
      until: (usage?.lastFailureAt ?? 0) + 30_000,
    });
  });
});

/** Per profile as OpenClaw's status says it: the latest deadline, disabled over cooldown, that window's reason. */
function byProfile(cooldowns: readonly OpenClawCooldown[]) {
  const out: Record<string, { until: number; kind: string; reason: string | null }> = {};
  for (const c of cooldowns) {
    const known = out[c.profile];
    const disabled = c.kind === 'disabled' || known?.kind === 'disabled';
    const reason = c.kind === 'disabled' ? c.reason : disabled ? (known?.reason ?? null) : c.reason;
    out[c.profile] = { until: Math.max(known?.until ?? 0, c.until), kind: disabled ? 'disabled' : 'cooldown', reason };
  }
  return out;
}

describe('OpenClawCooldowns', () => {
  it('reads the shared state database and every agent database, and merges them', () => {
    const shared = keep(sharedAuthDatabase(stateDir));
    shared.setStore(profileStore({ 'zai:default': 'zai' }));
    shared.setState(rateLimited(NOW + 5 * MIN));
    const agent = keep(agentAuthDatabase(stateDir, 'ops'));
    // An agent's own profile whose id does not name its provider: the store does.
    agent.setStore(profileStore({ 'personal:owner:1': 'deepseek' }));
    agent.setState({
      usageStats: { 'personal:owner:1': { disabledUntil: NOW + 10 * MIN, disabledReason: 'billing' } },
    });
    const cooldowns = reader();
    expect(cooldowns.poll()).toBe(true);
    expect(cooldowns.cooldowns(NOW).map((c) => [c.dep, c.profile, c.kind, c.reason])).toEqual([
      ['zai/glm-5.1', 'zai:default', 'cooldown', 'rate_limit'],
      ['deepseek', 'personal:owner:1', 'disabled', 'billing'],
    ]);
    expect(cooldowns.cooldownUntil('deepseek/deepseek-v4-pro', NOW)).toBe(NOW + 10 * MIN);
    expect(cooldowns.forDependency('zai/glm-5.1', NOW)).toEqual({
      until: NOW + 5 * MIN,
      reason: 'rate_limit',
      profile: 'zai:default',
      kind: 'cooldown',
    });
    expect(cooldowns.status(NOW)).toEqual({
      active: cooldowns.cooldowns(NOW),
      databases: [
        { path: join('agents', 'ops', 'agent', 'openclaw-agent.sqlite'), profiles: 1, error: null },
        { path: join('state', 'openclaw.sqlite'), profiles: 1, error: null },
      ],
      checkedAt: NOW,
    });
  });

  it('queries a database again only when it changed, and sees a commit the gateway makes', () => {
    const shared = keep(sharedAuthDatabase(stateDir));
    shared.setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    expect(cooldowns.poll()).toBe(true);
    expect(opens).toHaveLength(1);
    now += 5000;
    expect(cooldowns.poll()).toBe(false);
    expect(opens).toHaveLength(1);
    shared.setState(rateLimited(NOW + 9 * MIN));
    expect(cooldowns.poll()).toBe(true);
    expect(opens).toHaveLength(2);
    expect(cooldowns.cooldownUntil('zai/glm-5.1', now)).toBe(NOW + 9 * MIN);
  });

  it('reads an unchanged-looking database again after a minute', () => {
    keep(sharedAuthDatabase(stateDir)).setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    now += 59_000;
    cooldowns.poll();
    expect(opens).toHaveLength(1);
    now += 2000;
    expect(cooldowns.poll()).toBe(false);
    expect(opens).toHaveLength(2);
  });

  it('ends a cooldown by the clock alone, with no new read', () => {
    keep(sharedAuthDatabase(stateDir)).setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    expect(cooldowns.cooldownUntil('zai/glm-5.1', NOW + 5 * MIN - 1)).toBe(NOW + 5 * MIN);
    expect(cooldowns.cooldownUntil('zai/glm-5.1', NOW + 5 * MIN)).toBeNull();
    expect(cooldowns.cooldowns(NOW + 5 * MIN)).toEqual([]);
  });

  it('drops what a database said once it is gone', () => {
    const shared = keep(sharedAuthDatabase(stateDir));
    shared.setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    shared.close();
    writers = [];
    rmSync(join(stateDir, 'state'), { recursive: true, force: true });
    expect(cooldowns.poll()).toBe(true);
    expect(cooldowns.cooldowns(NOW)).toEqual([]);
    expect(cooldowns.status(NOW).databases).toEqual([]);
  });

  it('has nothing and no error when OpenClaw has no state yet, or the tables are not there', () => {
    const cooldowns = reader();
    expect(cooldowns.poll()).toBe(false);
    expect(cooldowns.status(NOW)).toEqual({ active: [], databases: [], checkedAt: NOW });
    // A 2026.7 state database: no config_machine_state. An agent database from before auth profiles.
    mkdirSync(join(stateDir, 'state'), { recursive: true });
    new Database(join(stateDir, 'state', 'openclaw.sqlite')).exec('CREATE TABLE other (x)').close();
    mkdirSync(join(stateDir, 'agents', 'main', 'agent'), { recursive: true });
    new Database(join(stateDir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'))
      .exec('CREATE TABLE transcript_events (x)')
      .close();
    cooldowns.poll();
    expect(cooldowns.status(NOW).databases.map((db) => db.error)).toEqual([null, null]);
    expect(cooldowns.cooldowns(NOW)).toEqual([]);
  });

  it('keeps reading the other databases when one holds state that is not JSON, and says which and why', () => {
    keep(agentAuthDatabase(stateDir, 'broken')).setState('{"usageStats": {');
    keep(sharedAuthDatabase(stateDir)).setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    expect(cooldowns.cooldowns(NOW).map((c) => c.dep)).toEqual(['zai/glm-5.1']);
    const broken = cooldowns.status(NOW).databases.find((db) => db.path.includes('broken'));
    expect(broken?.error).toMatch(/^auth state: not JSON \(/);
    // Logged once, not at every poll.
    now += 2 * MIN;
    cooldowns.poll();
    expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    expect(log.lines[0]?.fields?.path).toContain('broken');
  });

  it('still reads the cooldowns when the profile store is broken, taking providers from the ids', () => {
    const shared = keep(sharedAuthDatabase(stateDir));
    shared.setStore('not json at all');
    shared.setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    expect(cooldowns.cooldowns(NOW).map((c) => c.dep)).toEqual(['zai/glm-5.1']);
    expect(cooldowns.status(NOW).databases[0]?.error).toMatch(/^profile store: /);
  });

  it('reads the state of an agent database that has no profile store table, and says what is missing', () => {
    mkdirSync(join(stateDir, 'agents', 'main', 'agent'), { recursive: true });
    const db = new Database(join(stateDir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'));
    db.exec('CREATE TABLE auth_profile_state (state_key TEXT PRIMARY KEY, state_json TEXT, updated_at INTEGER)');
    db.prepare("INSERT INTO auth_profile_state VALUES ('primary', ?, 0)").run(JSON.stringify(rateLimited(NOW + MIN)));
    db.close();
    const cooldowns = reader();
    cooldowns.poll();
    expect(cooldowns.cooldowns(NOW).map((c) => c.dep)).toEqual(['zai/glm-5.1']);
    expect(cooldowns.status(NOW).databases[0]?.error).toBe('profile store: no auth_profile_store table');
  });

  it('never reads a credential: only ids and providers leave SQLite', () => {
    const shared = keep(sharedAuthDatabase(stateDir));
    shared.setStore(profileStore({ 'zai:default': 'zai' }));
    shared.setState(rateLimited(NOW + 5 * MIN));
    const cooldowns = reader();
    cooldowns.poll();
    expect(JSON.stringify(cooldowns.snapshot())).not.toContain('sk-test');
    expect(JSON.stringify(cooldowns.status(NOW))).not.toContain('sk-test');
  });

  it('reports a file that is not a database, and recovers when it becomes one', () => {
    mkdirSync(join(stateDir, 'state'), { recursive: true });
    writeFileSync(join(stateDir, 'state', 'openclaw.sqlite'), 'this is not SQLite, just some text long enough');
    const cooldowns = reader();
    expect(() => cooldowns.poll()).not.toThrow();
    expect(cooldowns.status(NOW).databases[0]?.error).toMatch(/not a database/);
    rmSync(join(stateDir, 'state'), { recursive: true, force: true });
    keep(sharedAuthDatabase(stateDir)).setState(rateLimited(NOW + 5 * MIN));
    now += 1000;
    cooldowns.poll();
    expect(cooldowns.status(NOW).databases[0]?.error).toBeNull();
    expect(log.lines.map((line) => line.msg)).toEqual([
      'OpenClaw cooldown state not fully readable',
      'OpenClaw cooldown state readable again',
    ]);
    expect(existsSync(join(stateDir, 'state', 'openclaw.sqlite'))).toBe(true);
  });
});
