/**
 * The recovery, proven on the real gateway: BreakerBar's daemon with its
 * watchdog live (not in dry run) beside a real OpenClaw, acting on its own
 * evidence — and the agents seen answering again afterwards.
 *
 * Each scenario runs a gateway of its own against the mock provider (so one
 * scenario's history never reaches the next one's backfill) and BreakerBar as
 * a user runs it: its defaults, the `openclaw` CLI on PATH, desktop
 * notifications through libnotify to a real notification daemon on a D-Bus
 * session (`desktop-session.ts`: what dunst printed is what the user saw), a
 * generic webhook on loopback. What each scenario shortens, and why, is in its
 * `SHORTENED` config; every other key keeps its default.
 *
 * Asserted is the whole story as a user would read it afterwards: the
 * watchdog's decisions, the restart's record and evidence, the incident and its
 * timeline, and every notice sent (desktop and webhook), in order, and nothing
 * else. Times (first 429 → breaker out, → first alert, recovery) are printed,
 * not asserted: a loaded machine must not fail the suite (`npm run bench --
 * recovery` measures them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import { type BreakerBar, startBreakerBar } from './harness/breakerbar.js';
import { type DesktopSession, startDesktopSession } from './harness/desktop-session.js';
import { type GatewayOptions, type RealGateway, startGateway, type TurnResult } from './harness/gateway.js';
import { type MockProvider, startMockProvider } from './harness/mock-provider.js';
import { ensureOpenClaw, type OpenClawRuntime } from './harness/runtime.js';

const TOOLS = toolOrSkip('node24', 'notify-send', 'dunst', 'xvfb-run', 'dbus-daemon');

/**
 * What every scenario shortens, so a storm is judged in seconds instead of minutes; the rules are the
 * defaults' rules, only their clocks run faster:
 * - health probes every 2 s (15 s): the restart's new uptime and the dead gateway are seen sooner;
 * - storm checks every 5 s over 10 s (60 s over 120 s): three checks in a row judge a storm in 15 s, not 3 min;
 * - an incident opens after 10 s of trouble (60 s) and closes after 15 s without (30 s).
 */
const SHORTENED = {
  health: { intervalSec: 2 },
  watchdog: { checkIntervalSec: 5, windowSec: 10 },
  incidents: { graceSec: 10, settleSec: 15 },
};

interface Scenario {
  root: string;
  mock: MockProvider;
  gateway: RealGateway;
  breakerbar: BreakerBar;
}

interface Decision {
  ts: number;
  source: string;
  decision: string;
  reason: string;
  dep: string | null;
}

interface RestartRow {
  id: number;
  ts: number;
  trigger: string;
  reason: string;
  result: string;
  strategy: string | null;
  command: string | null;
  exit_code: number | null;
  recovery_ms: number | null;
  detail: string | null;
}

interface IncidentRow {
  id: number;
  opened_at: number;
  closed_at: number | null;
  causes: string;
  deps: string;
  restarts: number;
}

interface NotificationRow {
  ts: number;
  kind: string;
  channel: string;
  title: string;
  ok: number;
}

describe.skipIf(TOOLS.skip)(TOOLS.title('recovery on the real OpenClaw 2026.9.6, watchdog live'), () => {
  let runtime: OpenClawRuntime;
  let desktop: DesktopSession;
  const running: Scenario[] = [];

  beforeAll(async () => {
    runtime = await ensureOpenClaw('2026.9.6');
    desktop = await startDesktopSession();
  }, 900_000);

  afterAll(async () => {
    for (const scenario of running) await stopScenario(scenario);
    await desktop?.stop();
  }, 120_000);

  async function startScenario(
    name: string,
    gatewayOptions: Pick<GatewayOptions, 'providers' | 'primary' | 'fallbacks'> &
      Partial<Pick<GatewayOptions, 'providerTimeoutSeconds'>>,
    config: Record<string, unknown>,
    prepare?: (mock: MockProvider) => void,
  ): Promise<Scenario> {
    const root = mkdtempSync(join(tmpdir(), `bb-recovery-${name}-`));
    const mock = await startMockProvider();
    prepare?.(mock);
    const gateway = await startGateway({ runtime, root, mock, ...gatewayOptions });
    const breakerbar = await startBreakerBar({ root, runtime, gateway, desktop, config });
    const scenario = { root, mock, gateway, breakerbar };
    running.push(scenario);
    return scenario;
  }

  async function stopScenario(scenario: Scenario): Promise<void> {
    running.splice(running.indexOf(scenario), 1);
    await scenario.breakerbar.stop();
    await scenario.gateway.stop();
    await scenario.mock.close();
    // BREAKERBAR_E2E_KEEP=1 leaves the state, logs and database behind for a look.
    if (process.env.BREAKERBAR_E2E_KEEP !== '1') rmSync(scenario.root, { recursive: true, force: true });
  }

  it('a 429 storm that outlives its Retry-After: one alert, the restart held, then --safe, the agents answering again, one recovery', async () => {
    const dep = 'mock/storm';
    const s = await startScenario(
      'storm',
      { providers: [{ id: 'mock', models: ['storm'] }], primary: dep, fallbacks: [], providerTimeoutSeconds: 90 },
      {
        ...SHORTENED,
        // The provider asks for 30 s each time; holding the restart for at most 30 s (600 s) lets the storm
        // outlive the hold within the test instead of after ten minutes.
        watchdog: { ...SHORTENED.watchdog, maxDeferralSec: 30 },
      },
      (mock) => {
        mock.steady('storm', 'rate_limit');
        mock.retryAfterSeconds = 30;
      },
    );
    const { breakerbar, mock, gateway } = s;
    const agents = keepSending(gateway, ['agent-a', 'agent-b']);
    const story = () => storyOf(breakerbar, mock, agents.results);
    try {
      await until(() => restarts(breakerbar).length > 0, 240_000, story, 500);
      const restartIssuedAt = Date.now();
      // The provider recovers once the restart is under way.
      mock.steady('storm', 'ok');
      await until(() => restarts(breakerbar).some((r) => r.result === 'recovered'), 360_000, story, 500);
      await until(
        () => mock.requests.some((r) => r.model === 'storm' && r.answer === 'ok' && r.at >= restartIssuedAt),
        120_000,
        story,
        500,
      );
      await agents.stop();
      await until(() => incidents(breakerbar).every((i) => i.closed_at !== null), 120_000, story, 500);
      console.log(await story());
    } finally {
      await agents.stop();
    }
  }, 900_000);
});

/** Agents that keep sending turns, one after the other per session, until stopped. */
function keepSending(gateway: RealGateway, sessions: readonly string[]) {
  let stopped = false;
  const results: TurnResult[] = [];
  let turn = 0;
  const loops = sessions.map(async (session) => {
    while (!stopped) {
      turn += 1;
      results.push(await gateway.turn(`${session}-${turn}`));
    }
  });
  return {
    results,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

function restarts(breakerbar: BreakerBar): RestartRow[] {
  return breakerbar.query<RestartRow>('SELECT * FROM restarts ORDER BY id');
}

function incidents(breakerbar: BreakerBar): IncidentRow[] {
  return breakerbar.query<IncidentRow>('SELECT * FROM incidents ORDER BY id');
}

/** Everything a failure message needs to tell what happened. */
async function storyOf(breakerbar: BreakerBar, mock: MockProvider, turns: readonly TurnResult[]): Promise<string> {
  const t0 = mock.requests[0]?.at ?? 0;
  const rel = (ts: number) => `+${((ts - t0) / 1000).toFixed(1)}s`;
  const lines: string[] = [];
  lines.push(
    `requests: ${mock.requests.length} (${[...new Set(mock.requests.map((r) => `${r.model}:${r.answer}`))].join(', ')})`,
  );
  for (const t of breakerbar.query<{ ts: number; dep: string; from_state: string; to_state: string; reason: string }>(
    'SELECT * FROM breaker_transitions ORDER BY id',
  ))
    lines.push(`${rel(t.ts)} breaker ${t.dep} ${t.from_state} → ${t.to_state}: ${t.reason}`);
  for (const d of breakerbar.query<Decision>(
    "SELECT * FROM watchdog_decisions WHERE decision NOT IN ('ok') ORDER BY id",
  ))
    lines.push(`${rel(d.ts)} decision ${d.source}/${d.decision}: ${d.reason}`);
  for (const r of restarts(breakerbar))
    lines.push(
      `${rel(r.ts)} restart ${r.trigger} ${r.result} ${r.strategy} ${r.command} exit=${r.exit_code} recovery=${r.recovery_ms}`,
    );
  for (const i of incidents(breakerbar)) {
    lines.push(`${rel(i.opened_at)} incident ${i.id} ${i.causes} ${i.deps} closed=${i.closed_at && rel(i.closed_at)}`);
    for (const e of breakerbar.query<{ ts: number; kind: string; text: string; n: number }>(
      'SELECT * FROM incident_events WHERE incident_id = ? ORDER BY ts, id',
      i.id,
    ))
      lines.push(`   ${rel(e.ts)} ${e.kind} ×${e.n}: ${e.text}`);
  }
  for (const n of breakerbar.query<NotificationRow>('SELECT * FROM notifications ORDER BY id'))
    lines.push(`${rel(n.ts)} notice ${n.channel} ${n.kind} ok=${n.ok}: ${n.title}`);
  for (const n of breakerbar.desktop()) lines.push(`${rel(n.at)} desktop: ${n.summary} — ${n.body}`);
  for (const w of breakerbar.webhooks) lines.push(`${rel(w.at)} webhook ${w.kind}: ${w.title}`);
  lines.push(`turns: ${turns.map((t) => `${t.sessionId}=${t.exitCode}`).join(' ')}`);
  lines.push(`daemon log tail:\n${breakerbar.log().slice(-3000)}`);
  return lines.join('\n');
}
