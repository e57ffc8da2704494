/**
 * The built-in rehearsal scenarios, as data (no copy step at build time).
 * Times are scenario seconds at BreakerBar's default policy; `--time-scale`
 * compresses them. Each is validated like a user's file when listed.
 */
import { type Scenario, validateScenario } from './scenario.js';

const ZHIPU = 'zhipu/glm-5.1';
const ZHIPU_FALLBACK = 'zhipu/glm-4.7';
const DEEPSEEK = 'deepseek/deepseek-v4-pro';
const ANTHROPIC = 'anthropic/claude-sonnet-4-5';
const CODEX = 'openai-codex/gpt-5.5';

function flappingPhases(): Scenario['phases'] {
  const phases: Scenario['phases'] = [];
  for (let cycle = 0; cycle < 9; cycle++) {
    phases.push({ atSec: 30 + cycle * 60, durationSec: 45, gateway: 'refuse', label: `gateway down #${cycle + 1}` });
  }
  return phases;
}

const RAW: Scenario[] = [
  {
    name: 'original-429-storm',
    description:
      'The storm that stalled the gateway for an hour: zhipu glm-5.1 answers 429 "访问量过大" and its zhipu fallback fails too, then every session stalls and no agent calls out any more, though the provider is back. The storm itself is alerted and waited out (storm restarts are off by default: OpenClaw retries through a storm), the divergence alarm fires, and the stall is restarted once as hung; the agents answer again.',
    durationSec: 900,
    rate: 10,
    agents: [
      { id: 'main', deps: [ZHIPU, ZHIPU_FALLBACK], weight: 2 },
      { id: 'coder', deps: [DEEPSEEK] },
      { id: 'research', deps: [ANTHROPIC, DEEPSEEK] },
    ],
    deps: [ZHIPU, ZHIPU_FALLBACK, DEEPSEEK, ANTHROPIC],
    restartSec: 5,
    phases: [
      {
        atSec: 30,
        durationSec: 300,
        label: '429 storm on zhipu',
        deps: { [ZHIPU]: { rate_limited: 0.95 }, [ZHIPU_FALLBACK]: { rate_limited: 0.7, overloaded: 0.3 } },
      },
      { atSec: 330, durationSec: 570, label: 'every session stalled', stalled: true },
    ],
    expectations: [
      { kind: 'breaker_state', dep: ZHIPU, state: 'throttled', withinSec: 10, afterPhase: 0 },
      { kind: 'decision', decision: 'storm_waited' },
      { kind: 'restarts', count: 0, phase: 0 },
      { kind: 'restarts', count: 1 },
      { kind: 'restart_evidence', evidence: 'hung', count: 1 },
      { kind: 'restart_result', result: 'recovered' },
      { kind: 'notification', notice: 'restart_started' },
      { kind: 'notification', notice: 'breaker_throttled', dep: ZHIPU },
      { kind: 'notification', notice: 'divergence' },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
  {
    name: '503-injection',
    description:
      'The classic breaker rehearsal: 10 calls/s for five minutes, 503s injected on anthropic mid-way; the breaker opens within 10 s, half-opens after its cooldown, and closes after recovery, without a restart.',
    durationSec: 300,
    rate: 10,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
      { id: 'ops', deps: [CODEX] },
    ],
    deps: [ANTHROPIC, DEEPSEEK, CODEX],
    phases: [
      { atSec: 90, durationSec: 90, label: '503s on anthropic', deps: { [ANTHROPIC]: { server_error: 0.9 } } },
      { atSec: 180, durationSec: 120, label: 'recovery' },
    ],
    expectations: [
      { kind: 'breaker_state', dep: ANTHROPIC, state: 'open', withinSec: 10, afterPhase: 0 },
      { kind: 'breaker_state', dep: ANTHROPIC, state: 'half_open', withinSec: 45, afterPhase: 0 },
      { kind: 'breaker_state', dep: ANTHROPIC, state: 'closed', withinSec: 110, afterPhase: 1 },
      { kind: 'notification', notice: 'breaker_opened', dep: ANTHROPIC },
      { kind: 'stays_closed', dep: DEEPSEEK },
      { kind: 'stays_closed', dep: CODEX },
      { kind: 'no_restart' },
    ],
  },
  {
    name: 'two-deps-failing',
    description:
      'Isolation: anthropic (503s) and zhipu (timeouts and resets) fail independently at once; both breakers open, deepseek stays closed, no restart.',
    durationSec: 240,
    rate: 10,
    agents: [
      { id: 'main', deps: [ANTHROPIC] },
      { id: 'cn', deps: [ZHIPU] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ANTHROPIC, ZHIPU, DEEPSEEK],
    phases: [
      {
        atSec: 60,
        durationSec: 120,
        label: 'anthropic 503s + zhipu timeouts',
        deps: { [ANTHROPIC]: { server_error: 0.9 }, [ZHIPU]: { timeout: 0.6, connection_reset: 0.3 } },
      },
    ],
    expectations: [
      { kind: 'breaker_state', dep: ANTHROPIC, state: 'open', withinSec: 10, afterPhase: 0 },
      { kind: 'breaker_state', dep: ZHIPU, state: 'open', withinSec: 10, afterPhase: 0 },
      { kind: 'stays_closed', dep: DEEPSEEK },
      { kind: 'notification', notice: 'breaker_opened', dep: ANTHROPIC },
      { kind: 'notification', notice: 'breaker_opened', dep: ZHIPU },
      { kind: 'no_restart' },
    ],
  },
  {
    name: 'flapping-gateway',
    description:
      'The gateway goes down (connections refused) and comes back every minute; restarts stay within the hourly budget and their growing spacing: no restart loop.',
    durationSec: 600,
    rate: 10,
    restartSec: 5,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ANTHROPIC, DEEPSEEK],
    phases: flappingPhases(),
    expectations: [
      { kind: 'restarts', min: 1, max: 4 },
      { kind: 'restart_spacing', minSec: 60 },
      { kind: 'notification', notice: 'gateway_down' },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
  {
    name: 'slow-start',
    description:
      'Storm restarts on (watchdog.stormRestart: safe): the gateway hangs, is restarted, and takes four minutes to start (a 429 storm meanwhile, which would restart it again); it is never restarted again while it reports starting.',
    durationSec: 600,
    rate: 10,
    config: { watchdog: { stormRestart: 'safe' } },
    restartSec: 240,
    agents: [
      { id: 'main', deps: [ZHIPU] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ZHIPU, DEEPSEEK],
    phases: [
      { atSec: 60, durationSec: 120, label: 'gateway hangs', gateway: 'hang' },
      { atSec: 120, durationSec: 180, label: '429 storm while starting', deps: { [ZHIPU]: { rate_limited: 0.9 } } },
    ],
    expectations: [
      { kind: 'restarts', count: 1 },
      { kind: 'no_restart_while_starting' },
      { kind: 'decision', decision: 'starting' },
      { kind: 'notification', notice: 'restart_started' },
    ],
  },
  {
    name: 'retry-after-defers',
    description:
      'Storm restarts on (watchdog.stormRestart: safe): zhipu answers 429 with Retry-After 120 s, then plain 429s: the storm restart is deferred while the Retry-After is in force (a restart cannot lift a provider limit), then runs once.',
    durationSec: 420,
    rate: 10,
    config: { watchdog: { stormRestart: 'safe' } },
    agents: [
      { id: 'main', deps: [ZHIPU] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ZHIPU, DEEPSEEK],
    phases: [
      {
        atSec: 30,
        durationSec: 120,
        label: '429 with Retry-After 120 s',
        deps: { [ZHIPU]: { rate_limited: 0.9, retryAfterSec: 120 } },
      },
      { atSec: 150, durationSec: 200, label: 'plain 429s', deps: { [ZHIPU]: { rate_limited: 0.9 } } },
    ],
    expectations: [
      { kind: 'breaker_state', dep: ZHIPU, state: 'throttled', withinSec: 10, afterPhase: 0 },
      { kind: 'decision', decision: 'deferred' },
      { kind: 'notification', notice: 'restart_deferred', dep: ZHIPU },
      { kind: 'no_restart_while_retry_after' },
      { kind: 'restarts', count: 1 },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
  {
    name: 'healthy-control',
    description:
      'Five minutes of normal traffic with the usual background noise (1 % timeouts, rare mid-stream aborts): no breaker opens, no restart, no notification.',
    durationSec: 300,
    rate: 10,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'cn', deps: [ZHIPU, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
      { id: 'ops', deps: [CODEX] },
    ],
    deps: [ANTHROPIC, ZHIPU, DEEPSEEK, CODEX],
    phases: [
      {
        atSec: 0,
        durationSec: 300,
        label: 'background noise',
        deps: {
          [ANTHROPIC]: { timeout: 0.01, aborted_mid_stream: 0.01 },
          [ZHIPU]: { timeout: 0.01 },
          [CODEX]: { aborted_mid_stream: 0.02 },
        },
      },
    ],
    expectations: [
      { kind: 'stays_closed', dep: ANTHROPIC },
      { kind: 'stays_closed', dep: ZHIPU },
      { kind: 'stays_closed', dep: DEEPSEEK },
      { kind: 'stays_closed', dep: CODEX },
      { kind: 'no_restart' },
      { kind: 'no_notifications' },
    ],
  },
  {
    name: 'in-process-restart',
    description:
      "The gateway restarts itself twice (OpenClaw's in-process restart): its port refuses connections for 10 s, it says starting for 2 s, then answers with its uptime reset; the first time its log says so first, the second time only the uptime tells. A restart, not a death: BreakerBar restarts nothing and reports no outage.",
    durationSec: 200,
    rate: 10,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ANTHROPIC, DEEPSEEK],
    // Probes every 5 s, so several of them meet the refused port.
    config: { health: { intervalSec: 5 } },
    // The two restarts far apart: the watchdog tells a new process by a start more than 2 s (wall, not
    // compressed) after the last one known, which bounds how far this scenario can be compressed (about 50×).
    phases: [
      {
        atSec: 20,
        durationSec: 40,
        label: 'in-process restart, logged',
        selfRestart: { refuseSec: 10, startingSec: 2, announce: true },
      },
      {
        atSec: 150,
        durationSec: 40,
        label: 'in-process restart, not logged',
        selfRestart: { refuseSec: 10, startingSec: 2, announce: false },
      },
    ],
    expectations: [
      { kind: 'no_restart' },
      { kind: 'no_notification', notice: 'gateway_down' },
      { kind: 'decision', decision: 'dead', phase: 0 },
      { kind: 'decision', decision: 'gateway_restarted', phase: 0 },
      { kind: 'decision', decision: 'dead', phase: 1 },
      { kind: 'decision', decision: 'gateway_restarted', phase: 1 },
    ],
  },
  {
    name: 'clock-step',
    description:
      "The gateway dies four times while the machine's wall clock is stepped back 2 h, then forward 2 h: restarts are neither held for hours (spacing) nor multiplied (budget of 3 an hour): exactly the three the policy makes without a step, then the budget alert.",
    durationSec: 620,
    rate: 10,
    restartSec: 5,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ANTHROPIC, DEEPSEEK],
    // The steps come a minute after the last restart was verified: OpenClaw's uptime follows the wall clock,
    // so a step while a restart is being verified changes which process the watchdog believes answers.
    config: {
      watchdog: { maxRestartsPerHour: 3 },
      // Records written after the step back are older than the run's start: still live, not history.
      ingest: { backfillDays: 1 },
    },
    phases: [
      { atSec: 20, durationSec: 60, label: 'gateway down #1', gateway: 'refuse' },
      { atSec: 140, durationSec: 0, label: 'wall clock back 2 h', clockStepSec: -7200 },
      { atSec: 160, durationSec: 80, label: 'gateway down #2 (clock 2 h behind)', gateway: 'refuse' },
      { atSec: 300, durationSec: 0, label: 'wall clock forward 2 h', clockStepSec: 7200 },
      { atSec: 340, durationSec: 80, label: 'gateway down #3', gateway: 'refuse' },
      { atSec: 500, durationSec: 60, label: 'gateway down #4 (budget spent)', gateway: 'refuse' },
    ],
    expectations: [
      { kind: 'restarts', count: 3 },
      { kind: 'restarts', phase: 0, count: 1 },
      { kind: 'restarts', phase: 2, count: 1 },
      { kind: 'restarts', phase: 4, count: 1 },
      { kind: 'restarts', phase: 5, count: 0 },
      { kind: 'no_decision', decision: 'spacing' },
      { kind: 'decision', decision: 'budget_exhausted', phase: 5 },
      { kind: 'notification_count', notice: 'restart_budget_exhausted', count: 1 },
      { kind: 'restart_evidence', evidence: 'dead', count: 3 },
      { kind: 'restart_result', result: 'recovered' },
    ],
  },
  {
    name: 'hung-gateway',
    description:
      'The gateway stops making progress while its probes stay green: no upstream call, and its log reports every session stalled (every 30 s once stuck for 2 min). After hungAfterSec it is hung: exactly one forced restart, stored with evidence hung; calls resume and the restart is verified recovered.',
    durationSec: 720,
    rate: 10,
    restartSec: 5,
    agents: [
      { id: 'main', deps: [ANTHROPIC, DEEPSEEK] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ANTHROPIC, DEEPSEEK],
    phases: [{ atSec: 60, durationSec: 660, label: 'gateway stalled', stalled: true }],
    expectations: [
      { kind: 'restarts', count: 1 },
      { kind: 'restart_evidence', evidence: 'hung', count: 1 },
      { kind: 'restart_result', result: 'recovered' },
      { kind: 'notification', notice: 'restart_started' },
      { kind: 'no_notification', notice: 'gateway_down' },
      { kind: 'stays_closed', dep: ANTHROPIC },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
  {
    name: 'no-gateway',
    description:
      'Nothing listens at the gateway address from the start, and nothing could restart it (no restart command, no openclaw CLI, no service manager or unit): ten minutes of refused probes restart nothing, not even as a dry run, and the watchdog says once why it will not.',
    durationSec: 600,
    rate: 0,
    environment: 'bare',
    agents: [{ id: 'main', deps: [ANTHROPIC] }],
    deps: [ANTHROPIC],
    config: { watchdog: { restartCommand: null } },
    phases: [{ atSec: 0, durationSec: 600, label: 'nothing listens', gateway: 'refuse' }],
    expectations: [
      { kind: 'no_restart' },
      { kind: 'notification_count', notice: 'watchdog_blocked', count: 1 },
      { kind: 'no_notification', notice: 'gateway_down' },
      { kind: 'decision', decision: 'unverified' },
    ],
  },
  {
    name: 'safe-restart-deferred',
    description:
      'Storm restarts on (watchdog.stormRestart: safe): a 429 storm on zhipu (no Retry-After, no fallback) with no restart command: the watchdog restarts through the openclaw CLI with --safe, OpenClaw answers that the restart is deferred until active work drains (exit 0), and the gateway restarts 120 s later. One restart, held as pending meanwhile (the storm reaching its threshold again issues none), that ends recovered.',
    durationSec: 300,
    rate: 10,
    environment: 'openclaw-cli',
    // Long enough for the storm to reach the threshold again while OpenClaw has not restarted yet.
    deferredRestartSec: 120,
    agents: [
      { id: 'main', deps: [ZHIPU] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ZHIPU, DEEPSEEK],
    // Checks every 30 s: the storm counts to its threshold (3) within the deferral, then stops before it could again.
    config: { watchdog: { restartCommand: null, checkIntervalSec: 30, stormRestart: 'safe' } },
    phases: [{ atSec: 30, durationSec: 200, label: 'plain 429s on zhipu', deps: { [ZHIPU]: { rate_limited: 0.9 } } }],
    expectations: [
      { kind: 'restarts', count: 1 },
      { kind: 'commands', program: 'openclaw', sequence: ['gateway restart --json --safe'] },
      { kind: 'decision', decision: 'pending' },
      { kind: 'restart_evidence', evidence: 'storm', count: 1 },
      { kind: 'restart_result', result: 'recovered' },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
  {
    name: 'launchagent-unloaded',
    description:
      'macOS without the openclaw CLI: the gateway runs as a LaunchAgent, healthy, until launchd unloads its job (the process goes with it; the plist stays). The watchdog sees the job unloaded, restarts once with evidence unloaded by bootstrapping the plist again and kickstarting the job, and the gateway recovers.',
    durationSec: 200,
    rate: 10,
    environment: 'launchd',
    agents: [{ id: 'main', deps: [ANTHROPIC, DEEPSEEK] }],
    deps: [ANTHROPIC, DEEPSEEK],
    // The strategy (launchctl print) is read on every check: every 10 s, so the unload is seen before the death.
    config: { watchdog: { restartCommand: null, checkIntervalSec: 10 } },
    phases: [
      { atSec: 60, durationSec: 140, label: 'launchd unloads the gateway', gateway: 'refuse', launchdUnloads: true },
    ],
    expectations: [
      { kind: 'restarts', count: 1 },
      { kind: 'restart_evidence', evidence: 'unloaded', count: 1 },
      { kind: 'commands', program: 'launchctl', sequence: ['bootstrap gui/', 'kickstart gui/'] },
      { kind: 'restart_result', result: 'recovered' },
    ],
  },
  {
    name: 'storm-during-cooldown',
    description:
      "Storm restarts on (watchdog.stormRestart: safe): a 429 storm on zhipu while OpenClaw's own rate-limit cooldown of it (in its state database) runs until second 270: no restart while it holds (OpenClaw keeps its cooldowns across restarts), one restart_deferred alert naming it, then, the storm going on, one storm restart.",
    durationSec: 420,
    rate: 10,
    config: { watchdog: { stormRestart: 'safe' } },
    agents: [
      { id: 'main', deps: [ZHIPU] },
      { id: 'coder', deps: [DEEPSEEK] },
    ],
    deps: [ZHIPU, DEEPSEEK],
    cooldowns: [{ dep: ZHIPU, reason: 'rate_limit', untilSec: 270 }],
    phases: [
      {
        atSec: 30,
        durationSec: 240,
        label: "429s while OpenClaw's cooldown holds",
        deps: { [ZHIPU]: { rate_limited: 0.9 } },
      },
      { atSec: 270, durationSec: 110, label: '429s after the cooldown', deps: { [ZHIPU]: { rate_limited: 0.9 } } },
    ],
    expectations: [
      { kind: 'restarts', count: 0, phase: 0 },
      { kind: 'restarts', count: 1 },
      { kind: 'decision', decision: 'deferred', reasonIncludes: 'OpenClaw holds', phase: 0 },
      { kind: 'notification_count', notice: 'restart_deferred', count: 1 },
      { kind: 'restart_evidence', evidence: 'storm', count: 1 },
      { kind: 'stays_closed', dep: DEEPSEEK },
    ],
  },
];

/** The built-in scenarios, validated. */
export const BUILT_IN_SCENARIOS: readonly Scenario[] = RAW.map((s) => validateScenario(s, `built-in ${s.name}`));

export function builtInScenario(name: string): Scenario | undefined {
  return BUILT_IN_SCENARIOS.find((s) => s.name === name);
}
