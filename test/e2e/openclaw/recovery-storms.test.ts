/**
 * The recovery, proven on the real gateway, in a 429 storm: BreakerBar's daemon with its watchdog live (not in
 * dry run) beside a real OpenClaw 2026.9.6 whose provider answers 429, acting on its own evidence, and the
 * agents seen answering again afterwards. What the suite as a whole proves, and how, is said in
 * `recovery.test.ts`; the scenarios that are not storms are there.
 *
 * A storm is mostly waiting: for the provider's Retry-After, OpenClaw's retries and cooldowns, an incident's
 * settle time. So the three run at once, each with its gateway, its daemon and a desktop session of its own
 * (what dunst printed there is that scenario's alone).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import { keepSending } from './harness/agents.js';
import type { MockProvider } from './harness/mock-provider.js';
import { SHORTENED, STORM_RETRY_AFTER_SECONDS } from './harness/recovery-config.js';
import {
  collapse,
  commandTail,
  decisionKinds,
  expectDesktop,
  firstTransition,
  firstTransitionOut,
  incidents,
  restarts,
  type ScenarioGateway,
  startScenario,
  storyOf,
  timelineKinds,
  untilResolved,
  webhookKinds,
} from './harness/recovery-scenario.js';
import { ensureOpenClaw, type OpenClawRuntime } from './harness/runtime.js';

const TOOLS = toolOrSkip('node24', 'notify-send', 'dunst', 'xvfb-run', 'dbus-daemon');

/** The stormed gateway: one model, no fallback; the provider timeout outlasts the Retry-After OpenClaw waits. */
const STORM_GATEWAY: ScenarioGateway = {
  providers: [{ id: 'mock', models: ['storm'] }],
  primary: 'mock/storm',
  fallbacks: [],
  providerTimeoutSeconds: 90,
};

/** The storm that outlives its Retry-After begins as 429s asking for a wait. */
function stormAskingToWait(provider: MockProvider): void {
  provider.steady('storm', 'rate_limit');
  provider.retryAfterSeconds = STORM_RETRY_AFTER_SECONDS;
}

describe.skipIf(TOOLS.skip).concurrent(TOOLS.title('a 429 storm on the real OpenClaw 2026.9.6, watchdog live'), () => {
  let runtime: OpenClawRuntime;

  beforeAll(async () => {
    runtime = await ensureOpenClaw('2026.9.6');
  }, 900_000);

  it('a 429 storm that outlives its Retry-After, on the defaults: one alert, waited out (no restart), the agents answering once the provider does, one recovery', async ({
    onTestFinished,
  }) => {
    const dep = STORM_GATEWAY.primary;
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      {
        name: 'storm-default',
        gateway: STORM_GATEWAY,
        config: SHORTENED,
        prepare: stormAskingToWait,
      },
      onTestFinished,
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

  it('a 429 storm that outlives its Retry-After, storm restarts on: one alert, the restart held while the provider asks to wait, then --safe, the agents answering again, one recovery', async ({
    onTestFinished,
  }) => {
    const dep = STORM_GATEWAY.primary;
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      {
        name: 'storm',
        gateway: STORM_GATEWAY,
        // Storm restarts on, as a user who wants the old cron watchdog's behaviour sets them.
        config: { ...SHORTENED, watchdog: { ...SHORTENED.watchdog, stormRestart: 'safe' } },
        prepare: stormAskingToWait,
      },
      onTestFinished,
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

  it('a storm a fallback answers for: no restart, and the headline says the fallback answers', async ({
    onTestFinished,
  }) => {
    const { breakerbar, mock, gateway } = await startScenario(
      runtime,
      {
        name: 'fallback',
        gateway: {
          providers: [{ id: 'mock', models: ['storm', 'backup'] }],
          primary: 'mock/storm',
          fallbacks: ['mock/backup'],
        },
        config: SHORTENED,
        prepare: (provider) => {
          provider.steady('storm', 'rate_limit');
          provider.steady('backup', 'ok');
          // Longer than OpenClaw's cap on a server-requested wait (`retry.provider.maxRetryDelayMs`, 60 s): with a
          // fallback configured, OpenClaw then fails over at once instead of retrying the primary for minutes.
          provider.retryAfterSeconds = 120;
        },
      },
      onTestFinished,
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
});
