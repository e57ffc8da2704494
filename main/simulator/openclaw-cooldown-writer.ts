/**
 * Writes OpenClaw's auth state as OpenClaw 2026.9 keeps it, so that a
 * rehearsal can put a dependency in OpenClaw's own cooldown: the shared state
 * database `<stateDir>/state/openclaw.sqlite`, table `config_machine_state`,
 * rows `auth.sharedStore`, `authProfiles.store` (one API-key profile per
 * provider, `<provider>:default`, with a dummy key) and `authProfiles.state`
 * (`usageStats`: per profile a `cooldownUntil` with its reason and, for a
 * model-scoped reason such as `rate_limit`, the model).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The shared state database's schema version in OpenClaw 2026.9.6. */
const STATE_SCHEMA_VERSION = 18;

export interface CooldownToWrite {
  /** `provider/model`. */
  dep: string;
  reason: string;
  /** Epoch ms, on the wall clock OpenClaw stores. */
  until: number;
}

/** Writes the cooldowns (replacing any auth state there); `now` is when the last failure happened. */
export function writeOpenClawCooldowns(stateDir: string, cooldowns: CooldownToWrite[], now: number): string {
  const path = join(stateDir, 'state', 'openclaw.sqlite');
  mkdirSync(join(stateDir, 'state'), { recursive: true });
  const profiles: Record<string, { type: string; provider: string; key: string }> = {};
  const usageStats: Record<string, Record<string, unknown>> = {};
  for (const cooldown of cooldowns) {
    const slash = cooldown.dep.indexOf('/');
    const provider = cooldown.dep.slice(0, slash);
    const model = cooldown.dep.slice(slash + 1);
    const id = `${provider}:default`;
    profiles[id] = { type: 'api_key', provider, key: `sk-rehearsal-${provider}` };
    usageStats[id] = {
      cooldownUntil: cooldown.until,
      cooldownReason: cooldown.reason,
      cooldownModel: model,
      errorCount: 1,
      failureCounts: { [cooldown.reason]: 1 },
      lastFailureAt: now,
    };
  }
  const db = new Database(path);
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS config_machine_state (
      state_key TEXT NOT NULL PRIMARY KEY,
      value_json TEXT NOT NULL,
      updated_at_ms INTEGER NOT NULL
    ) STRICT`);
    db.pragma(`user_version = ${STATE_SCHEMA_VERSION}`);
    const put = db.prepare(
      'INSERT OR REPLACE INTO config_machine_state (state_key, value_json, updated_at_ms) VALUES (?, ?, ?)',
    );
    db.transaction(() => {
      put.run('auth.sharedStore', JSON.stringify({ location: 'state-db' }), now);
      put.run('authProfiles.store', JSON.stringify({ version: 1, profiles }), now);
      put.run('authProfiles.state', JSON.stringify({ version: 1, usageStats }), now);
    })();
  } finally {
    db.close();
  }
  return path;
}
