/**
 * OpenClaw's own cooldowns, read by BreakerBar from the real gateway's state
 * while it runs: each version's gateway against the mock provider, with auth
 * profiles (`openclaw models auth paste-api-key`) so that a failure is
 * recorded against a profile as in a real install:
 *
 * - `mockrl/storm` answers 429 until OpenClaw gives up: a model-scoped
 *   `rate_limit` cooldown on profile `mockrl:manual`;
 * - `mockbill/no_credits` answers 402 "insufficient credits": `mockbill:manual`
 *   disabled for billing (the whole profile);
 * - `mockauth/unauthorized` answers 401 on an API key written inline in
 *   `openclaw.json` (no profile): what OpenClaw records for it, if anything.
 *
 * The ground truth is OpenClaw's own `openclaw models status --json`
 * (`auth.unusableProfiles`): at the instant OpenClaw evaluated it, BreakerBar's
 * reader must list exactly the same profiles, with the same deadline, kind
 * and reason.
 *
 * `BREAKERBAR_CAPTURE_FIXTURES=1` also writes the auth state the run left
 * (trimmed to the auth tables, rows as OpenClaw wrote them) and OpenClaw's
 * answer to `test/fixtures/openclaw-<version>/cooldowns/`, which
 * `test/core/openclaw/cooldowns.test.ts` replays.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenClawCooldown } from '../../../main/core/openclaw/cooldown-state.js';
import { OpenClawCooldowns } from '../../../main/core/openclaw/cooldowns.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { type RealGateway, startGateway, type TurnResult } from './harness/gateway.js';
import { type MockProvider, startMockProvider } from './harness/mock-provider.js';
import { ensureOpenClaw, OPENCLAW_VERSIONS, type OpenClawRuntime, type OpenClawVersion } from './harness/runtime.js';

const NODE24 = toolOrSkip('node24');

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** One entry of OpenClaw's `auth.unusableProfiles`. */
interface Unusable {
  profileId: string;
  provider?: string;
  kind: 'cooldown' | 'disabled';
  reason?: string;
  until: number;
  remainingMs: number;
}

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

describe.skipIf(NODE24.skip).each(OPENCLAW_VERSIONS)(
  NODE24.title("OpenClaw %s's cooldowns"),
  (version: OpenClawVersion) => {
    let runtime: OpenClawRuntime;
    let root: string;
    let mock: MockProvider;
    let gateway: RealGateway;
    const turns: TurnResult[] = [];
    /** Read right after the storm turn, while its cooldown is surely in force. */
    let afterStorm: OpenClawCooldown[] = [];
    let stormEndedAt = 0;
    let unusable: Unusable[] = [];
    let statusOutput = '';

    beforeAll(async () => {
      runtime = await ensureOpenClaw(version);
      root = mkdtempSync(join(tmpdir(), `bb-cooldowns-${version}-`));
      mock = await startMockProvider();
      mock.retryAfterSeconds = 1;
      mock.steady('storm', 'rate_limit');
      gateway = await startGateway({
        runtime,
        root,
        mock,
        providers: [
          { id: 'mockrl', models: ['storm'] },
          { id: 'mockbill', models: ['no_credits'] },
          { id: 'mockauth', models: ['unauthorized'] },
        ],
        primary: 'mockrl/storm',
        fallbacks: [],
      });
      for (const provider of ['mockrl', 'mockbill']) await pasteApiKey(runtime, gateway, provider);
      // The storm takes longest (OpenClaw retries it): the other two are over by the time it ends.
      turns.push(
        ...(await Promise.all([
          gateway.turn('storm', 'mockrl/storm'),
          gateway.turn('billing', 'mockbill/no_credits'),
          gateway.turn('auth', 'mockauth/unauthorized'),
        ])),
      );
      stormEndedAt = Date.now();
      const reader = new OpenClawCooldowns({ stateDir: gateway.stateDir, log: silentLog, clock: Date.now });
      reader.poll();
      afterStorm = reader.cooldowns(Date.now());
      // At once: the storm's first window lasts 30 s.
      statusOutput = await modelsStatus(runtime, gateway);
      unusable = (JSON.parse(statusOutput) as { auth: { unusableProfiles: Unusable[] } }).auth.unusableProfiles;
    }, 900_000);

    afterAll(async () => {
      await gateway?.stop();
      await mock?.close();
      if (root && process.env.BREAKERBAR_E2E_KEEP !== '1') rmSync(root, { recursive: true, force: true });
    }, 120_000);

    it('reads the rate-limit cooldown OpenClaw put on the profile, scoped to the model', () => {
      const storm = afterStorm.find((c) => c.profile === 'mockrl:manual');
      expect(
        storm,
        `turns: ${JSON.stringify(turns.map((t) => [t.sessionId, t.exitCode, t.output.slice(-300)]))}`,
      ).toMatchObject({
        dep: 'mockrl/storm',
        provider: 'mockrl',
        model: 'storm',
        kind: 'cooldown',
        reason: 'rate_limit',
      });
      const lastRateLimit = Math.max(...mock.requests.filter((r) => r.answer === 'rate_limit').map((r) => r.at));
      // The first rate-limit window is 30 s from the failure OpenClaw recorded (after its last retry).
      expect(storm?.until).toBeGreaterThan(stormEndedAt);
      expect(storm?.until).toBeGreaterThanOrEqual(lastRateLimit + 30_000 - 1000);
      expect(storm?.until).toBeLessThanOrEqual(stormEndedAt + 30_000 + 1000);
    });

    it('lists exactly what `openclaw models status` lists, at the instant OpenClaw evaluated it', () => {
      expect(unusable.length, statusOutput.slice(0, 2000)).toBeGreaterThan(0);
      const openclawNow = (unusable[0] as Unusable).until - (unusable[0] as Unusable).remainingMs;
      // Kept as evidence first, whatever the checks below find.
      if (process.env.BREAKERBAR_CAPTURE_FIXTURES === '1') captureFixtures(version, gateway, statusOutput, openclawNow);
      const reader = new OpenClawCooldowns({ stateDir: gateway.stateDir, log: silentLog, clock: () => openclawNow });
      reader.poll();
      expect(reader.status(openclawNow).databases.filter((db) => db.error !== null)).toEqual([]);
      const seen = reader.cooldowns(openclawNow);
      expect(asOpenClawSays(byProfile(seen), unusable), JSON.stringify(reader.snapshot().usage)).toEqual(
        fromOpenClaw(unusable),
      );
      const billing = seen.find((c) => c.profile === 'mockbill:manual');
      expect(billing, JSON.stringify(seen)).toMatchObject({ dep: 'mockbill', kind: 'disabled', reason: 'billing' });
      // The only profile of mockbill is out: OpenClaw will not call any of its models before then.
      expect(reader.cooldownUntil('mockbill/no_credits', openclawNow)).toBe(billing?.until);
    });
  },
);

async function pasteApiKey(runtime: OpenClawRuntime, gateway: RealGateway, provider: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      runtime.node,
      [runtime.entry, 'models', 'auth', 'paste-api-key', '--provider', provider],
      { env: gateway.env, timeout: 120_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`paste-api-key ${provider}: ${error.message}\n${stdout}\n${stderr}`)) : resolve(),
    );
    child.stdin?.end(`sk-e2e-${provider}\n`);
  });
}

function modelsStatus(runtime: OpenClawRuntime, gateway: RealGateway): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      runtime.node,
      [runtime.entry, 'models', 'status', '--json'],
      { env: gateway.env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`models status: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Per profile, as OpenClaw's status words it: the latest deadline, disabled over cooldown, and that window's reason. */
function byProfile(
  cooldowns: readonly OpenClawCooldown[],
): Record<string, { until: number; kind: string; reason: string | null }> {
  const out: Record<string, { until: number; kind: string; reason: string | null }> = {};
  for (const c of cooldowns) {
    const known = out[c.profile];
    const kind = c.kind === 'disabled' || known?.kind === 'disabled' ? 'disabled' : 'cooldown';
    const reason = c.kind === 'disabled' ? c.reason : kind === 'disabled' ? (known?.reason ?? null) : c.reason;
    out[c.profile] = { until: Math.max(known?.until ?? 0, c.until), kind, reason };
  }
  return out;
}

function fromOpenClaw(
  list: readonly Unusable[],
): Record<string, { until: number; kind: string; reason: string | null }> {
  return Object.fromEntries(list.map((u) => [u.profileId, { until: u.until, kind: u.kind, reason: u.reason ?? null }]));
}

/** 2026.7's status gives a reason for disables only (its `disabledReason`): reasons compare where it gives one. */
function asOpenClawSays(
  mine: Record<string, { until: number; kind: string; reason: string | null }>,
  list: readonly Unusable[],
): Record<string, { until: number; kind: string; reason: string | null }> {
  const gives = new Map(list.map((u) => [u.profileId, u.reason !== undefined]));
  return Object.fromEntries(
    Object.entries(mine).map(([profile, entry]) => [
      profile,
      gives.get(profile) === false ? { ...entry, reason: null } : entry,
    ]),
  );
}

/** The auth tables of the run's databases (OpenClaw's own CREATE statements and rows), and OpenClaw's answer. */
function captureFixtures(version: string, gateway: RealGateway, statusOutput: string, openclawNow: number): void {
  const dir = join(FIXTURES, `openclaw-${version}`, 'cooldowns');
  rmSync(dir, { recursive: true, force: true });
  const copies: Array<[string, string[], string | null]> = [
    [join('agents', 'main', 'agent', 'openclaw-agent.sqlite'), ['auth_profile_state', 'auth_profile_store'], null],
    [
      join('state', 'openclaw.sqlite'),
      ['config_machine_state'],
      "state_key IN ('auth.sharedStore', 'authProfiles.state', 'authProfiles.store')",
    ],
  ];
  for (const [relative, tables, where] of copies) {
    const from = join(gateway.stateDir, relative);
    if (!existsSync(from)) continue;
    const source = new Database(from, { readonly: true });
    try {
      const present = tables.filter((table) =>
        source.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table),
      );
      if (present.length === 0) continue;
      const to = join(dir, relative);
      mkdirSync(dirname(to), { recursive: true });
      const target = new Database(to);
      try {
        target.pragma(`user_version = ${source.pragma('user_version', { simple: true }) as number}`);
        for (const table of present) {
          const { sql } = source.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string };
          target.exec(sql);
          const rows = source.prepare(`SELECT * FROM ${table}${where ? ` WHERE ${where}` : ''}`).all() as Array<
            Record<string, unknown>
          >;
          for (const row of rows) {
            const columns = Object.keys(row);
            target
              .prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
              .run(...columns.map((column) => row[column]));
          }
        }
        target.exec('VACUUM');
      } finally {
        target.close();
      }
    } finally {
      source.close();
    }
  }
  const status = JSON.parse(statusOutput) as { auth: { unusableProfiles: Unusable[] } };
  writeFileSync(
    join(dir, 'models-status.json'),
    `${JSON.stringify({ openclawNow, unusableProfiles: status.auth.unusableProfiles }, null, 2)}\n`,
  );
}
