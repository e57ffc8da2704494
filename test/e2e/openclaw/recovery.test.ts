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
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import { type Agents, keepSending } from './harness/agents.js';
import { type BreakerBar, startBreakerBar } from './harness/breakerbar.js';
import { type DesktopSession, startDesktopSession } from './harness/desktop-session.js';
import { type GatewayOptions, type RealGateway, startGateway, type TurnResult } from './harness/gateway.js';
import { type MockProvider, startMockProvider } from './harness/mock-provider.js';
import { SHORTENED, STORM_RETRY_AFTER_SECONDS } from './harness/recovery-config.js';
import { ensureOpenClaw, type OpenClawRuntime } from './harness/runtime.js';

const TOOLS = toolOrSkip('node24', 'notify-send', 'dunst', 'xvfb-run', 'dbus-daemon');

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
  evidence: string | null;
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
    healthy = startHealthy();
    await healthy;
    hung = startHung();
    await hung;
  }, 900_000);

  /**
   * The healthy gateway runs beside every other scenario, from the first to the last: its ten minutes of
   * traffic cost the suite no time of their own, and the load of the other gateways is part of its day.
   */
  let healthy: Promise<{ scenario: Scenario; agents: Agents; began: number }>;
  async function startHealthy() {
    const scenario = await startScenario(
      'healthy',
      { providers: [{ id: 'mock', models: ['ok', 'ok_long'] }], primary: 'mock/ok', fallbacks: ['mock/ok_long'] },
      // Nothing shortened: this is what a user's BreakerBar does beside a gateway that is fine.
      {},
    );
    // Kept to itself: `afterEach` stops only the scenario that just ran.
    running.pop();
    const agents = keepSending(scenario.gateway, ['short', 'long'], {
      model: (session) => (session.startsWith('long') ? 'mock/ok_long' : undefined),
      paceMs: HEALTHY_PACE_MS,
    });
    return { scenario, agents, began: Date.now() };
  }

  /**
   * The hung gateway runs beside the other scenarios too: OpenClaw reports a run stalled only after six minutes
   * without progress, minutes the suite spends on the others. It has a desktop session of its own, so that its
   * notices are told from theirs.
   */
  let hung: Promise<HungRun>;
  interface HungRun {
    scenario: Scenario;
    hungDesktop: DesktopSession;
    /** The turn the provider never answers. */
    stuck: Promise<TurnResult>;
    /** Resolves once BreakerBar has restarted the gateway and the restart's outcome is known. */
    restarted: Promise<void>;
  }
  async function startHung(): Promise<HungRun> {
    const hungDesktop = await startDesktopSession();
    const scenario = await startScenario(
      'hung',
      // Longer than OpenClaw's own stall report: 2026.9.6 calls a model call without progress "long-running"
      // until 6 min (its stuck-session abort age: max(5 min, 3 × its 2 min warning)), and only then reports the
      // session stalled; the request, and the turn's own timeout, must outlast it.
      {
        providers: [{ id: 'mock', models: ['slow'] }],
        primary: 'mock/slow',
        fallbacks: [],
        providerTimeoutSeconds: 900,
        turnTimeoutSeconds: 900,
      },
      // Stalled sessions and no upstream attempt for 30 s (5 min) count as hung: the stall report itself already
      // comes after six minutes without progress.
      { ...SHORTENED, watchdog: { ...SHORTENED.watchdog, hungAfterSec: 30 } },
      (provider) => {
        provider.steady('slow', 'ok');
        provider.hold('slow');
      },
      undefined,
      hungDesktop,
    );
    running.pop();
    const { breakerbar, mock } = scenario;
    const stuck = scenario.gateway.turn('stuck');
    const restarted = until(
      () => restarts(breakerbar).length > 0,
      600_000,
      () => storyOf(breakerbar, mock, []),
      1000,
    )
      .then(() =>
        until(
          () => restarts(breakerbar).some((r) => r.result !== 'running' && r.result !== 'pending'),
          420_000,
          () => storyOf(breakerbar, mock, []),
          500,
        ),
      )
      // The provider answers again at once: OpenClaw resumes the run it cut short, which would otherwise hang
      // (and be restarted) anew if this scenario's own test ran late.
      .then(() => mock.release('slow'));
    // Awaited by its own test; a failure meanwhile is reported there, not as an unhandled rejection.
    restarted.catch(() => undefined);
    return { scenario, hungDesktop, stuck, restarted };
  }

  // Each scenario's gateway and daemon stop with it: the next one has the machine to itself.
  afterEach(async () => {
    for (const scenario of [...running]) await stopScenario(scenario);
  }, 120_000);

  afterAll(async () => {
    const background = await healthy?.catch(() => null);
    if (background) {
      await background.agents.stop();
      await stopScenario(background.scenario);
    }
    const hungRun = await hung?.catch(() => null);
    if (hungRun) {
      await stopScenario(hungRun.scenario);
      await hungRun.hungDesktop.stop();
    }
    await desktop?.stop();
  }, 120_000);

  async function startScenario(
    name: string,
    gatewayOptions: Pick<GatewayOptions, 'providers' | 'primary' | 'fallbacks'> &
      Partial<Pick<GatewayOptions, 'providerTimeoutSeconds' | 'turnTimeoutSeconds'>>,
    config: Record<string, unknown>,
    prepare?: (mock: MockProvider) => void,
    /** Config that names the gateway (its start command): merged over `config`. */
    configFor?: (gateway: RealGateway) => Record<string, unknown>,
    /** The desktop its notices go to (default: the suite's). */
    scenarioDesktop: DesktopSession = desktop,
  ): Promise<Scenario> {
    const root = mkdtempSync(join(tmpdir(), `bb-recovery-${name}-`));
    const mock = await startMockProvider();
    prepare?.(mock);
    const gateway = await startGateway({ runtime, root, mock, ...gatewayOptions });
    const breakerbar = await startBreakerBar({
      root,
      runtime,
      gateway,
      desktop: scenarioDesktop,
      config: { ...config, ...configFor?.(gateway) },
    });
    const scenario = { root, mock, gateway, breakerbar };
    running.push(scenario);
    return scenario;
  }

  async function stopScenario(scenario: Scenario): Promise<void> {
    const at = running.indexOf(scenario);
    if (at >= 0) running.splice(at, 1);
    await scenario.breakerbar.stop();
    await scenario.gateway.stop();
    await scenario.mock.close();
    // BREAKERBAR_E2E_KEEP=1 leaves the state, logs and database behind for a look.
    // Retried: a CLI process of the scenario (a turn the gateway never answered) may still be writing its last file.
    if (process.env.BREAKERBAR_E2E_KEEP !== '1')
      rmSync(scenario.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  it('a 429 storm that outlives its Retry-After, on the defaults: one alert, waited out (no restart), the agents answering once the provider does, one recovery', async () => {
    const dep = 'mock/storm';
    const { breakerbar, mock, gateway } = await startScenario(
      'storm-default',
      // The provider timeout outlasts the Retry-After OpenClaw waits between attempts.
      { providers: [{ id: 'mock', models: ['storm'] }], primary: dep, fallbacks: [], providerTimeoutSeconds: 90 },
      SHORTENED,
      (provider) => {
        provider.steady('storm', 'rate_limit');
        provider.retryAfterSeconds = STORM_RETRY_AFTER_SECONDS;
      },
    );
    const agents = keepSending(gateway, ['agent-a', 'agent-b']);
    const story = () => storyOf(breakerbar, mock, agents.turns);
    const waitedOut = () =>
      breakerbar.query<{ ts: number }>("SELECT ts FROM watchdog_decisions WHERE decision = 'storm_waited' ORDER BY id");
    try {
      await until(() => waitedOut().length > 0, 300_000, story, 500);
      const headline = (await breakerbar.cli(['status'])).stdout.split('\n')[0] ?? '';
      // The storm goes on without asking for a wait: where storm restarts are on, one is issued once the last
      // ask has run out and OpenClaw's retry meets another 429 (the next scenario). Here the provider stays down
      // 30 s past that moment, OpenClaw still retrying, and nothing is restarted.
      const asksEndedAt = Date.now();
      mock.retryAfterSeconds = null;
      const lastAsk = mock.requests.filter((r) => r.answer === 'rate_limit' && r.at <= asksEndedAt).at(-1);
      const askRunsOut = (lastAsk?.at ?? asksEndedAt) + STORM_RETRY_AFTER_SECONDS * 1000;
      await until(
        () =>
          Date.now() > askRunsOut + 30_000 && mock.requests.some((r) => r.answer === 'rate_limit' && r.at > askRunsOut),
        300_000,
        story,
        500,
      );
      const recoveredAt = Date.now();
      mock.steady('storm', 'ok');
      // OpenClaw's own retry of a run in flight brings the agents back.
      await until(() => agents.turns.some((t) => t.exitCode === 0 && t.endedAt > recoveredAt), 300_000, story, 500);
      await agents.stop();
      const after = await gateway.turn('after-recovery');
      expect(after.exitCode, after.output).toBe(0);
      await untilResolved(breakerbar, 240_000, story);
      console.log(`storm scenario, defaults:\n${await story()}\nheadline: ${headline}`);

      const firstRateLimit = mock.requests.find((r) => r.answer === 'rate_limit') as { at: number };
      const out = firstTransitionOut(breakerbar, dep);
      console.log(`openclaw 2026.9.6, defaults: first 429 → breaker out: ${out.ts - firstRateLimit.at} ms`);
      expect(out).toMatchObject({ from_state: 'closed', to_state: 'throttled' });
      expect(headline).toMatch(/^429 storm on mock\/storm .*waiting it out: OpenClaw retries, storm restarts are off/);

      // Decisions: counted, then waited out at every check of the storm; nothing held, nothing restarted.
      const kinds = decisionKinds(breakerbar, ['counting', 'storm_waited', 'deferred', 'restart']);
      expect(kinds[0]).toBe('counting');
      expect(collapse(kinds.filter((k) => k !== 'counting'))).toEqual(['storm_waited']);
      expect(restarts(breakerbar)).toEqual([]);
      // No process restart either: the gateway the agents came back on is the one they stormed.
      expect(decisionKinds(breakerbar, ['gateway_restarted'])).toEqual([]);

      const [incident] = incidents(breakerbar);
      expect(incidents(breakerbar)).toHaveLength(1);
      expect(JSON.parse(incident?.causes ?? '[]')).toEqual(['breaker']);
      expect(incident).toMatchObject({ restarts: 0 });
      // The watchdog's decisions of the settle time sort after the close (it is dated when the last cause ended).
      const timeline = timelineKinds(breakerbar, incident?.id ?? 0).filter((kind) => kind !== 'decision');
      expect(timeline[0]).toBe('opened');
      expect(timeline.at(-1)).toBe('closed');
      expect(timeline).not.toContain('restart');

      expect(webhookKinds(breakerbar)).toEqual(['incident_opened', 'incident_resolved']);
      expectDesktop(
        breakerbar,
        ['breaker_throttled', 'incident_opened', 'breaker_closed', 'incident_resolved'],
        // Timing decides whether the storm's trials reopen the breaker without an ask, and whether it lasts
        // long enough for the divergence alarm.
        ['breaker_throttled', 'breaker_opened', 'divergence'],
      );
    } finally {
      await agents.stop();
    }
  }, 900_000);

  it('a 429 storm that outlives its Retry-After, storm restarts on: one alert, the restart held while the provider asks to wait, then --safe, the agents answering again, one recovery', async () => {
    const dep = 'mock/storm';
    const { breakerbar, mock, gateway } = await startScenario(
      'storm',
      // The provider timeout outlasts the Retry-After OpenClaw waits between attempts.
      { providers: [{ id: 'mock', models: ['storm'] }], primary: dep, fallbacks: [], providerTimeoutSeconds: 90 },
      // Storm restarts on, as a user who wants the old cron watchdog's behaviour sets them.
      { ...SHORTENED, watchdog: { ...SHORTENED.watchdog, stormRestart: 'safe' } },
      (provider) => {
        provider.steady('storm', 'rate_limit');
        provider.retryAfterSeconds = STORM_RETRY_AFTER_SECONDS;
      },
    );
    const agents = keepSending(gateway, ['agent-a', 'agent-b']);
    const story = () => storyOf(breakerbar, mock, agents.turns);
    try {
      // While the provider asks for a wait, OpenClaw waits as asked and the restart is held: it could not make
      // the provider answer sooner, and would cut the waiting turns short.
      await until(() => decisionKinds(breakerbar, ['deferred']).length > 0, 300_000, story, 500);
      // The storm outlives its Retry-After: the provider goes on answering 429, now without asking for a wait.
      const asksEndedAt = Date.now();
      mock.retryAfterSeconds = null;
      await until(() => restarts(breakerbar).length > 0, 300_000, story, 500);
      const restartIssuedAt = Date.now();
      expect(restarts(breakerbar)[0]?.ts ?? 0).toBeGreaterThan(asksEndedAt);
      // The provider recovers once the restart is under way.
      mock.steady('storm', 'ok');
      await until(
        () => restarts(breakerbar).some((r) => r.result !== 'running' && r.result !== 'pending'),
        420_000,
        story,
        500,
      );
      await agents.stop();
      const after = await gateway.turn('after-recovery');
      expect(after.exitCode, after.output).toBe(0);
      await untilResolved(breakerbar, 240_000, story);
      console.log(`storm scenario:\n${await story()}\ndesktop: ${JSON.stringify(breakerbar.desktop())}`);

      const firstRateLimit = mock.requests.find((r) => r.answer === 'rate_limit') as { at: number };
      const out = firstTransitionOut(breakerbar, dep);
      console.log(`openclaw 2026.9.6, watchdog live: first 429 → breaker out: ${out.ts - firstRateLimit.at} ms`);
      expect(out).toMatchObject({ from_state: 'closed', to_state: 'throttled' });

      // Decisions: counted (held through the Retry-After waits), deferred, one storm restart, recovered.
      const kinds = decisionKinds(breakerbar, ['counting', 'deferred', 'restart', 'recovered']);
      expect(kinds[0]).toBe('counting');
      expect(collapse(kinds.filter((k) => k !== 'counting'))).toEqual(['deferred', 'restart', 'recovered']);
      const [restart] = restarts(breakerbar);
      expect(restarts(breakerbar)).toHaveLength(1);
      expect(restart).toMatchObject({
        trigger: 'storm',
        evidence: 'storm',
        result: 'recovered',
        strategy: 'openclaw',
      });
      expect(commandTail(restart)).toEqual(['gateway', 'restart', '--json', '--safe']);
      expect(restart?.reason).toMatch(
        /^429 storm on mock\/storm for .+, (Retry-After and cooldowns over|no Retry-After or cooldown in force), no fallback answering: restarting$/,
      );
      // OpenClaw restarted in process (SIGUSR2), seen by BreakerBar as that restart, never as a new death.
      expect(decisionKinds(breakerbar, ['gateway_restarted'])).toContain('gateway_restarted');
      // The provider answered again after the restart was issued, and the agents with it.
      expect(mock.requests.some((r) => r.answer === 'ok' && r.at >= restartIssuedAt)).toBe(true);

      const [incident] = incidents(breakerbar);
      expect(incidents(breakerbar)).toHaveLength(1);
      expect(JSON.parse(incident?.causes ?? '[]')).toEqual(['breaker']);
      expect(incident).toMatchObject({ restarts: 1 });
      const timeline = timelineKinds(breakerbar, incident?.id ?? 0);
      expect(timeline[0]).toBe('opened');
      expect(timeline.at(-1)).toBe('closed');
      expect(timeline).toContain('restart');

      expect(webhookKinds(breakerbar)).toEqual(['incident_opened', 'incident_resolved']);
      expectDesktop(
        breakerbar,
        [
          'breaker_throttled',
          'incident_opened',
          'restart_deferred',
          'restart_started',
          ['restart_succeeded', 'breaker_closed'],
          'incident_resolved',
        ],
        ['breaker_throttled', 'divergence'],
      );
    } finally {
      await agents.stop();
    }
  }, 900_000);

  it('a storm a fallback answers for: no restart, and the headline says the fallback answers', async () => {
    const { breakerbar, mock, gateway } = await startScenario(
      'fallback',
      { providers: [{ id: 'mock', models: ['storm', 'backup'] }], primary: 'mock/storm', fallbacks: ['mock/backup'] },
      SHORTENED,
      (provider) => {
        provider.steady('storm', 'rate_limit');
        provider.steady('backup', 'ok');
        // Longer than OpenClaw's cap on a server-requested wait (`retry.provider.maxRetryDelayMs`, 60 s): with a
        // fallback configured, OpenClaw then fails over at once instead of retrying the primary for minutes.
        provider.retryAfterSeconds = 120;
      },
    );
    const agents = keepSending(gateway, ['agent-a', 'agent-b']);
    const story = () => storyOf(breakerbar, mock, agents.turns);
    try {
      await until(() => decisionKinds(breakerbar, ['fallback_answering']).length > 0, 240_000, story, 500);
      const status = await breakerbar.cli(['status']);
      const headline = status.stdout.split('\n')[0] ?? '';
      expect(headline).toMatch(/^429 storm on mock\/storm .*fallback mock\/backup answering/);
      await agents.stop();
      // Every turn was answered: by the fallback while the primary was rate limited.
      expect(agents.turns.filter((t) => t.exitCode !== 0)).toEqual([]);
      mock.steady('storm', 'ok');
      // The breaker counts no call while the provider's 120 s Retry-After holds it: its trials come after.
      await until(() => firstTransition(breakerbar, 'mock/storm', 'half_open'), 240_000, story, 500);
      // Two sessions: a breaker closes on successful trials from more than one session.
      for (const session of ['after-storm-a', 'after-storm-b']) {
        const after = await gateway.turn(session);
        expect(after.exitCode, after.output).toBe(0);
      }
      await untilResolved(breakerbar, 240_000, story);
      console.log(`fallback scenario:\n${await story()}\nheadline: ${headline}`);
      expect(restarts(breakerbar)).toEqual([]);
      expect(decisionKinds(breakerbar, ['restart', 'deferred'])).toEqual([]);
      expect(incidents(breakerbar).length).toBeLessThanOrEqual(1);
      expect(webhookKinds(breakerbar)).toEqual(
        incidents(breakerbar).length === 1 ? ['incident_opened', 'incident_resolved'] : [],
      );
    } finally {
      await agents.stop();
    }
  }, 900_000);

  it("a dead gateway: restarted through the user's restartCommand, one incident, the agents answering again", async () => {
    let startCommand: readonly string[] = [];
    const { breakerbar, mock, gateway } = await startScenario(
      'dead',
      { providers: [{ id: 'mock', models: ['ok'] }], primary: 'mock/ok', fallbacks: [] },
      SHORTENED,
      undefined,
      (g) => {
        startCommand = g.startCommand;
        return { watchdog: { ...SHORTENED.watchdog, restartCommand: startCommand } };
      },
    );
    const story = () => storyOf(breakerbar, mock, []);
    const before = await gateway.turn('before');
    expect(before.exitCode, before.output).toBe(0);
    await until(() => decisionKinds(breakerbar, ['healthy']).length > 0, 60_000, story, 200);
    gateway.kill('SIGKILL');
    const killedAt = Date.now();
    await until(
      () =>
        restarts(breakerbar).some(
          (r) => r.result === 'recovered' || r.result === 'failed' || r.result === 'not_recovered',
        ),
      300_000,
      story,
      500,
    );
    const after = await gateway.turn('after');
    expect(after.exitCode, after.output).toBe(0);
    await untilResolved(breakerbar, 120_000, story);
    console.log(`dead scenario:\n${await story()}`);
    const [restart] = restarts(breakerbar);
    expect(restarts(breakerbar)).toHaveLength(1);
    expect(restart).toMatchObject({
      trigger: 'health',
      evidence: 'dead',
      result: 'recovered',
      strategy: 'command',
      exit_code: 0,
    });
    expect(JSON.parse(restart?.command ?? 'null')).toEqual(startCommand);
    expect((restart?.ts ?? 0) - killedAt).toBeGreaterThanOrEqual(30_000);
    const [incident] = incidents(breakerbar);
    expect(incidents(breakerbar)).toHaveLength(1);
    expect(JSON.parse(incident?.causes ?? '[]')).toEqual(['gateway_dead']);
    expect(webhookKinds(breakerbar)).toEqual(['incident_opened', 'incident_resolved']);
    expectDesktop(breakerbar, [
      ['gateway_down', 'incident_opened', 'restart_started'],
      ['restart_succeeded', 'gateway_up'],
      'incident_resolved',
    ]);
  }, 900_000);

  it('the gateway restarting itself (SIGUSR2, then `openclaw gateway restart` by hand): no restart by BreakerBar, no alert', async () => {
    const { breakerbar, mock, gateway } = await startScenario(
      'self',
      { providers: [{ id: 'mock', models: ['ok'] }], primary: 'mock/ok', fallbacks: [] },
      SHORTENED,
    );
    const story = () => storyOf(breakerbar, mock, []);
    await until(() => decisionKinds(breakerbar, ['healthy']).length > 0, 60_000, story, 200);
    const restartedItself = () => decisionKinds(breakerbar, ['gateway_restarted']).length;
    gateway.kill('SIGUSR2');
    await until(() => restartedItself() >= 1, 120_000, story, 200);
    await until(async () => (await gateway.probe('/readyz')).status === 200, 120_000, story, 200);
    const byHand = await gateway.cli(['gateway', 'restart', '--json']);
    expect(byHand.exitCode, byHand.stdout + byHand.stderr).toBe(0);
    await until(() => restartedItself() >= 2, 120_000, story, 200);
    await until(async () => (await gateway.probe('/readyz')).status === 200, 120_000, story, 200);
    const after = await gateway.turn('after');
    expect(after.exitCode, after.output).toBe(0);
    // Past deadAfterSec and the incident grace: a death that was going to be alerted would be by now.
    const settled = Date.now() + 35_000;
    await until(() => Date.now() > settled, 40_000, story, 500);
    console.log(`self-restart scenario:\n${await story()}`);
    expect(restarts(breakerbar)).toEqual([]);
    expect(incidents(breakerbar)).toEqual([]);
    expect(webhookKinds(breakerbar)).toEqual([]);
    expect(breakerbar.desktop()).toEqual([]);
  }, 900_000);

  it('maintenance, then quiet hours: a dead gateway is recorded and not restarted, then restarted and not notified', async () => {
    let startCommand: readonly string[] = [];
    const { breakerbar, mock, gateway } = await startScenario(
      'quiet',
      { providers: [{ id: 'mock', models: ['ok'] }], primary: 'mock/ok', fallbacks: [] },
      SHORTENED,
      undefined,
      (g) => {
        startCommand = g.startCommand;
        return {
          watchdog: { ...SHORTENED.watchdog, restartCommand: startCommand },
          // Quiet all day, critical notices included: nothing may reach the desktop or the webhook.
          alerts: { quietHours: [{ from: '00:00', to: '00:00' }], quietHoursAllowCritical: false },
        };
      },
    );
    const story = () => storyOf(breakerbar, mock, []);
    await until(() => decisionKinds(breakerbar, ['healthy']).length > 0, 60_000, story, 200);
    const started = await breakerbar.cli(['maintenance', 'start', '--for', '30m', '--reason', 'upgrading OpenClaw']);
    expect(started.exitCode, started.stderr).toBe(0);
    gateway.kill('SIGKILL');
    await until(() => decisionKinds(breakerbar, ['maintenance']).length > 0, 120_000, story, 500);
    expect(restarts(breakerbar)).toEqual([]);
    const stopped = await breakerbar.cli(['maintenance', 'stop']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    await until(() => restarts(breakerbar).some((r) => r.result === 'recovered'), 300_000, story, 500);
    const after = await gateway.turn('after');
    expect(after.exitCode, after.output).toBe(0);
    await untilResolved(breakerbar, 120_000, story);
    console.log(`maintenance and quiet hours scenario:\n${await story()}`);
    expect(restarts(breakerbar)).toHaveLength(1);
    expect(restarts(breakerbar)[0]).toMatchObject({ evidence: 'dead', result: 'recovered' });
    expect(incidents(breakerbar)).toHaveLength(1);
    // Recorded, each held notice with why: nothing reached a person.
    const held = breakerbar.query<NotificationRow & { error: string | null }>(
      'SELECT * FROM notifications ORDER BY id',
    );
    expect(held.length).toBeGreaterThan(0);
    for (const row of held)
      expect({ kind: row.kind, ok: row.ok, error: row.error?.replace(/\(.*$/, '').trim() }).toMatchObject({
        kind: row.kind,
        ok: 0,
        error: expect.stringMatching(/^suppressed: (maintenance|quiet hours)/),
      });
    expect(held.some((row) => row.error?.startsWith('suppressed: maintenance'))).toBe(true);
    expect(held.some((row) => row.error?.startsWith('suppressed: quiet hours'))).toBe(true);
    expect(webhookKinds(breakerbar)).toEqual([]);
    expect(breakerbar.desktop()).toEqual([]);
  }, 900_000);

  // Last: by now the healthy gateway, started before the first scenario, has had its ten minutes.
  it('healthy mixed traffic for 10 minutes of gateway time, BreakerBar on its defaults: no incident, no notice, no restart', async () => {
    const { scenario, agents, began } = await healthy;
    const { breakerbar, mock } = scenario;
    try {
      await until(() => Date.now() - began >= HEALTHY_FOR_MS, HEALTHY_FOR_MS + 60_000, 'ten minutes of traffic', 1000);
    } finally {
      await agents.stop();
    }
    console.log(`healthy scenario:\n${await storyOf(breakerbar, mock, agents.turns)}`);
    expect(agents.turns.length).toBeGreaterThan(20);
    expect(agents.turns.filter((t) => t.exitCode !== 0)).toEqual([]);
    expect(new Set(mock.requests.map((r) => r.model))).toEqual(new Set(['ok', 'ok_long']));
    expect(restarts(breakerbar)).toEqual([]);
    expect(incidents(breakerbar)).toEqual([]);
    expect(breakerbar.query('SELECT * FROM breaker_transitions')).toEqual([]);
    // Nothing sent on any channel (the desktop daemon is shared with the other scenarios: the record is its own).
    expect(breakerbar.query('SELECT kind, title FROM notifications')).toEqual([]);
    expect(webhookKinds(breakerbar)).toEqual([]);
    const decided = breakerbar.query<{ decision: string }>('SELECT DISTINCT decision FROM watchdog_decisions');
    // A probe BreakerBar could not run on time ('unknown': its own loop held up, as happens on a loaded 2-core
    // machine) judges nothing and counts toward nothing; every other decision must be a calm one.
    const judged = new Set(decided.map((row) => row.decision).filter((decision) => decision !== 'unknown'));
    expect(judged).toEqual(new Set(['healthy', 'quiet']));
    const headline = (await breakerbar.cli(['status'])).stdout.split('\n')[0] ?? '';
    expect(headline).toMatch(/^All well/);
  }, 900_000);

  // Near the end: the hung gateway, started before the first scenario, has been reported stalled by now.
  it('a hung gateway: the provider accepts and never answers, OpenClaw reports the run stalled, BreakerBar restarts it (`hung`), the agents answer again', async () => {
    const { scenario, stuck, restarted } = await hung;
    const { breakerbar, mock, gateway } = scenario;
    const story = () => storyOf(breakerbar, mock, []);
    // The provider answers again once the restart is done (released there): the turns after it go through.
    await restarted;
    const after = await gateway.turn('after');
    expect(after.exitCode, after.output).toBe(0);
    await stuck;
    await untilResolved(breakerbar, 180_000, story);
    console.log(`hung scenario:\n${await story()}\ndesktop: ${JSON.stringify(breakerbar.desktop())}`);
    const stalled = gateway
      .logEntries()
      .filter((e) => e.subsystem === 'diagnostic' && /^stalled session/.test(e.message));
    expect(stalled.length).toBeGreaterThan(0);
    const [restart] = restarts(breakerbar);
    expect(restarts(breakerbar)).toHaveLength(1);
    expect(restart).toMatchObject({ trigger: 'health', evidence: 'hung', result: 'recovered', strategy: 'openclaw' });
    // The restart came on OpenClaw's own stall report, never before it.
    expect(restart?.ts ?? 0).toBeGreaterThanOrEqual(stalled[0]?.at ?? Number.POSITIVE_INFINITY);
    expect(restart?.reason).toMatch(
      /^gateway hung: it answers its probes, but 1 session stalled \(.+\) and no upstream attempt for /,
    );
    expect(commandTail(restart)).toEqual(['gateway', 'restart', '--json', '--wait', '30s']);
    // Probes refused while OpenClaw restarts are part of that restart (`dead` decisions), never a second one.
    expect(decisionKinds(breakerbar, ['restart'])).toEqual(['restart']);
    const [incident] = incidents(breakerbar);
    expect(incidents(breakerbar)).toHaveLength(1);
    expect(JSON.parse(incident?.causes ?? '[]')).toEqual(['gateway_hung']);
    expect(incident).toMatchObject({ restarts: 1 });
    expect(webhookKinds(breakerbar)).toEqual(['incident_opened', 'incident_resolved']);
    expectDesktop(breakerbar, [['incident_opened', 'restart_started'], 'restart_succeeded', 'incident_resolved']);
  }, 900_000);

  it('the one-click restart (the API the tray and the dashboard call): recorded as manual, the gateway seen back', async () => {
    const { breakerbar, mock, gateway } = await startScenario(
      'manual',
      { providers: [{ id: 'mock', models: ['ok'] }], primary: 'mock/ok', fallbacks: [] },
      SHORTENED,
    );
    const story = () => storyOf(breakerbar, mock, []);
    await until(() => decisionKinds(breakerbar, ['healthy']).length > 0, 60_000, story, 200);
    const answer = await breakerbar.api<{ ok: boolean }>('POST', '/api/watchdog/restart', {});
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    await until(
      () =>
        restarts(breakerbar).some(
          (r) => r.result === 'recovered' || r.result === 'failed' || r.result === 'not_recovered',
        ),
      300_000,
      story,
      500,
    );
    const after = await gateway.turn('after');
    expect(after.exitCode, after.output).toBe(0);
    console.log(`one-click restart scenario:\n${await story()}`);
    expect(restarts(breakerbar)).toHaveLength(1);
    expect(restarts(breakerbar)[0]).toMatchObject({ trigger: 'manual', result: 'recovered', strategy: 'openclaw' });
    expect(commandTail(restarts(breakerbar)[0])).toEqual(['gateway', 'restart', '--json', '--safe']);
    expect(incidents(breakerbar)).toEqual([]);
    expect(webhookKinds(breakerbar)).toEqual([]);
    expectDesktop(breakerbar, ['restart_started', 'restart_succeeded']);
  }, 900_000);
});

/** How long the healthy scenario's traffic lasts: ten minutes of gateway time. */
const HEALTHY_FOR_MS = 10 * 60_000;
/** Between one healthy turn and the next of the same agent: a person's pace, and CPU left for the other gateways. */
const HEALTHY_PACE_MS = 10_000;

function restarts(breakerbar: BreakerBar): RestartRow[] {
  return breakerbar.query<RestartRow>('SELECT * FROM restarts ORDER BY id');
}

function incidents(breakerbar: BreakerBar): IncidentRow[] {
  return breakerbar.query<IncidentRow>('SELECT * FROM incidents ORDER BY id');
}

/** The restart's command after the `openclaw` it ran (stored as a JSON argv). */
function commandTail(restart: RestartRow | undefined): string[] {
  const argv = JSON.parse(restart?.command ?? '[]') as string[];
  expect(argv[0]).toMatch(/\/openclaw$/);
  return argv.slice(1);
}

function firstTransition(breakerbar: BreakerBar, dep: string, to: string): boolean {
  return (
    breakerbar.query('SELECT 1 FROM breaker_transitions WHERE dep = ? AND to_state = ? LIMIT 1', dep, to).length > 0
  );
}

function firstTransitionOut(breakerbar: BreakerBar, dep: string) {
  const [row] = breakerbar.query<{ ts: number; from_state: string; to_state: string }>(
    "SELECT ts, from_state, to_state FROM breaker_transitions WHERE dep = ? AND from_state = 'closed' ORDER BY id LIMIT 1",
    dep,
  );
  if (!row) throw new Error(`the breaker of ${dep} never left closed`);
  return row;
}

/** The watchdog's decisions of these kinds, in order. */
function decisionKinds(breakerbar: BreakerBar, kinds: readonly string[]): string[] {
  return breakerbar
    .query<{ decision: string }>(
      `SELECT decision FROM watchdog_decisions WHERE decision IN (${kinds.map(() => '?').join(',')}) ORDER BY id`,
      ...kinds,
    )
    .map((row) => row.decision);
}

/**
 * Every incident closed and its `incident_resolved` notice through: recorded on every channel its
 * `incident_opened` was, and each one recorded as sent on the webhook received there (the notices go out
 * after the incident closes).
 */
async function untilResolved(breakerbar: BreakerBar, timeoutMs: number, story: () => Promise<string>): Promise<void> {
  const count = (kind: string) =>
    breakerbar.query<{ channel: string; n: number }>(
      'SELECT channel, COUNT(*) AS n FROM notifications WHERE kind = ? GROUP BY channel ORDER BY channel',
      kind,
    );
  await until(
    () => {
      if (incidents(breakerbar).some((i) => i.closed_at === null)) return false;
      if (JSON.stringify(count('incident_opened')) !== JSON.stringify(count('incident_resolved'))) return false;
      const sent = breakerbar.query<{ n: number }>(
        "SELECT COUNT(*) AS n FROM notifications WHERE kind = 'incident_resolved' AND channel LIKE 'webhook%' AND ok = 1",
      )[0]?.n;
      return webhookKinds(breakerbar).filter((kind) => kind === 'incident_resolved').length >= (sent ?? 0);
    },
    timeoutMs,
    story,
    500,
  );
}

/** Runs of the same value folded into one: `a a b a` → `a b a`. */
function collapse(values: readonly string[]): string[] {
  return values.filter((value, i) => i === 0 || values[i - 1] !== value);
}

function timelineKinds(breakerbar: BreakerBar, incident: number): string[] {
  return breakerbar
    .query<{ kind: string }>('SELECT kind FROM incident_events WHERE incident_id = ? ORDER BY ts, id', incident)
    .map((row) => row.kind);
}

function webhookKinds(breakerbar: BreakerBar): string[] {
  return breakerbar.webhooks.map((post) => post.kind);
}

/**
 * The desktop notices, as stored and as the notification daemon showed them: exactly the kinds expected, in
 * order, where a group in `expected` (an array) is kinds whose order among themselves races (two things
 * BreakerBar learns from different sources within the same second).
 */
function expectDesktop(
  breakerbar: BreakerBar,
  expected: ReadonlyArray<string | readonly string[]>,
  /** Kinds that may come once more than expected, when timing allows: a repeat folded by coalescing, an alarm. */
  mayRepeat: readonly string[] = [],
): void {
  const all = breakerbar.query<NotificationRow>("SELECT * FROM notifications WHERE channel = 'desktop' ORDER BY id");
  const groups = expected.map((group) => (typeof group === 'string' ? [group] : [...group]));
  const wanted = new Map<string, number>();
  for (const kind of groups.flat()) wanted.set(kind, (wanted.get(kind) ?? 0) + 1);
  const seenOf = new Map<string, number>();
  const rows = all.filter((row) => {
    const seen = (seenOf.get(row.kind) ?? 0) + 1;
    seenOf.set(row.kind, seen);
    return !(
      mayRepeat.includes(row.kind) &&
      seen > (wanted.get(row.kind) ?? 0) &&
      seen <= (wanted.get(row.kind) ?? 0) + 1
    );
  });
  const seen: string[][] = [];
  let at = 0;
  for (const group of groups) {
    const part = rows.slice(at, at + group.length).map((row) => row.kind);
    seen.push([...part].sort());
    at += group.length;
  }
  expect({ groups: seen, rest: rows.slice(at).map((row) => row.kind) }).toEqual({
    groups: groups.map((group) => [...group].sort()),
    rest: [],
  });
  expect(all.every((row) => row.ok === 1)).toBe(true);
  // What the notification daemon showed, in the same order: the desktop really got each one.
  expect(breakerbar.desktop().map((shown) => shown.summary)).toEqual(all.map((row) => row.title));
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
