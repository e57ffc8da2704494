/**
 * The recovery, proven on the real gateway: BreakerBar's daemon with its
 * watchdog live (not in dry run) beside a real OpenClaw, acting on its own
 * evidence — and the agents seen answering again afterwards.
 *
 * The storms are in `recovery-storms.test.ts`; here are a dead, a self-restarting,
 * a maintained, a hung and a healthy gateway, and the one-click restart.
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import { type Agents, keepSending } from './harness/agents.js';
import { type DesktopSession, startDesktopSession } from './harness/desktop-session.js';
import type { TurnResult } from './harness/gateway.js';
import { SHORTENED } from './harness/recovery-config.js';
import {
  commandTail,
  decisionKinds,
  expectDesktop,
  incidents,
  type NotificationRow,
  restarts,
  type Scenario,
  type ScenarioGateway,
  startScenario,
  stopScenario,
  storyOf,
  untilResolved,
  webhookKinds,
} from './harness/recovery-scenario.js';
import { ensureOpenClaw, type OpenClawRuntime } from './harness/runtime.js';

const TOOLS = toolOrSkip('node24', 'notify-send', 'dunst', 'xvfb-run', 'dbus-daemon');

/** A gateway whose one model answers. */
const OK_GATEWAY: ScenarioGateway = { providers: [{ id: 'mock', models: ['ok'] }], primary: 'mock/ok', fallbacks: [] };

describe.skipIf(TOOLS.skip)(TOOLS.title('recovery on the real OpenClaw 2026.9.6, watchdog live'), () => {
  let runtime: OpenClawRuntime;
  let desktop: DesktopSession;

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
    const scenario = await startScenario(runtime, {
      name: 'healthy',
      gateway: {
        providers: [{ id: 'mock', models: ['ok', 'ok_long'] }],
        primary: 'mock/ok',
        fallbacks: ['mock/ok_long'],
      },
      // Nothing shortened: this is what a user's BreakerBar does beside a gateway that is fine.
      config: {},
      desktop,
    });
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
    /** The turn the provider never answers. */
    stuck: Promise<TurnResult>;
    /** Resolves once BreakerBar has restarted the gateway and the restart's outcome is known. */
    restarted: Promise<void>;
  }
  async function startHung(): Promise<HungRun> {
    const scenario = await startScenario(runtime, {
      name: 'hung',
      // Longer than OpenClaw's own stall report: 2026.9.6 calls a model call without progress "long-running"
      // until 6 min (its stuck-session abort age: max(5 min, 3 × its 2 min warning)), and only then reports the
      // session stalled; the request, and the turn's own timeout, must outlast it.
      gateway: {
        providers: [{ id: 'mock', models: ['slow'] }],
        primary: 'mock/slow',
        fallbacks: [],
        providerTimeoutSeconds: 900,
        turnTimeoutSeconds: 900,
      },
      // Stalled sessions and no upstream attempt for 30 s (5 min) count as hung: the stall report itself already
      // comes after six minutes without progress.
      config: { ...SHORTENED, watchdog: { ...SHORTENED.watchdog, hungAfterSec: 30 } },
      prepare: (provider) => {
        provider.steady('slow', 'ok');
        provider.hold('slow');
      },
    });
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
    return { scenario, stuck, restarted };
  }

  afterAll(async () => {
    const background = await healthy?.catch(() => null);
    if (background) {
      await background.agents.stop();
      await stopScenario(background.scenario);
    }
    const hungRun = await hung?.catch(() => null);
    if (hungRun) await stopScenario(hungRun.scenario);
    await desktop?.stop();
  }, 120_000);

  it("a dead gateway: restarted through the user's restartCommand, one incident, the agents answering again", async ({
    onTestFinished,
  }) => {
    let startCommand: readonly string[] = [];
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      {
        name: 'dead',
        gateway: OK_GATEWAY,
        config: SHORTENED,
        configFor: (g) => {
          startCommand = g.startCommand;
          return { watchdog: { ...SHORTENED.watchdog, restartCommand: startCommand } };
        },
        desktop,
      },
      onTestFinished,
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

  it('the gateway restarting itself (SIGUSR2, then `openclaw gateway restart` by hand): no restart by BreakerBar, no alert', async ({
    onTestFinished,
  }) => {
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      { name: 'self', gateway: OK_GATEWAY, config: SHORTENED, desktop },
      onTestFinished,
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

  it('maintenance, then quiet hours: a dead gateway is recorded and not restarted, then restarted and not notified', async ({
    onTestFinished,
  }) => {
    let startCommand: readonly string[] = [];
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      {
        name: 'quiet',
        gateway: OK_GATEWAY,
        config: SHORTENED,
        configFor: (g) => {
          startCommand = g.startCommand;
          return {
            watchdog: { ...SHORTENED.watchdog, restartCommand: startCommand },
            // Quiet all day, critical notices included: nothing may reach the desktop or the webhook.
            alerts: { quietHours: [{ from: '00:00', to: '00:00' }], quietHoursAllowCritical: false },
          };
        },
        desktop,
      },
      onTestFinished,
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

  it('the one-click restart (the API the tray and the dashboard call): recorded as manual, the gateway seen back', async ({
    onTestFinished,
  }) => {
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      { name: 'manual', gateway: OK_GATEWAY, config: SHORTENED, desktop },
      onTestFinished,
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
/**
 * Between one healthy turn and the next of the same agent: a person's pace, and CPU left for the other
 * gateways (each turn is an `openclaw agent` process, seconds of CPU to start). About 40 turns in ten minutes.
 */
const HEALTHY_PACE_MS = 20_000;
