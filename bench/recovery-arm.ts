/**
 * One arm of the recovery benchmark: the storm of `test/e2e/openclaw/recovery-storms.test.ts` on a real gateway of
 * its own (the mock provider answering `mock/storm` with 429 and `Retry-After: 30`, two sessions sending turns
 * one after the other, BreakerBar's daemon beside it with desktop notifications and a webhook), the provider
 * optionally ceasing to ask for a wait (429s without Retry-After) and recovering at moments the caller sets
 * relative to the first 429, and everything read back afterwards as times relative to that first 429.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storedBreakerReasonLine } from '../main/words/breaker-reasons.js';
import { storedDecisionReasonLine } from '../main/words/decision-reasons.js';
import { keepSending, type TimedTurn } from '../test/e2e/openclaw/harness/agents.js';
import { type BreakerBar, startBreakerBar } from '../test/e2e/openclaw/harness/breakerbar.js';
import type { DesktopSession } from '../test/e2e/openclaw/harness/desktop-session.js';
import { startGateway } from '../test/e2e/openclaw/harness/gateway.js';
import { startMockProvider } from '../test/e2e/openclaw/harness/mock-provider.js';
import { SHORTENED, STORM_RETRY_AFTER_SECONDS } from '../test/e2e/openclaw/harness/recovery-config.js';
import type { OpenClawRuntime } from '../test/e2e/openclaw/harness/runtime.js';
import { until } from '../test/helpers/transcripts.js';
import { watchGateway } from './recovery-watch.js';

export const MODEL = 'storm';
export const DEP = `mock/${MODEL}`;
export const RETRY_AFTER_SEC = STORM_RETRY_AFTER_SECONDS;
export const SESSIONS = ['agent-a', 'agent-b'] as const;

export type { TimedTurn };

export interface RestartRecord {
  ts: number;
  trigger: string;
  result: string;
  command: string | null;
  exit_code: number | null;
  recovery_ms: number | null;
  detail: string | null;
}

export interface ArmResult {
  name: string;
  /** Storm restarts on (`watchdog.stormRestart: safe`); false: BreakerBar's defaults (storms waited out). */
  stormRestart: boolean;
  /** The mock received the first 429'd request (epoch ms): every figure counts from here. */
  t0: number;
  /** When the provider began answering ok. */
  recoveredAt: number;
  /** When the provider stopped sending Retry-After with its 429s; null if it asked until it recovered. */
  asksEndedAt: number | null;
  /** Provider requests, oldest first, with the Retry-After a 429 carried (null: none, or not a 429). */
  requests: Array<{ at: number; answer: string; retryAfterSec: number | null }>;
  breakerOut: { at: number; to: string; reason: string } | null;
  firstDesktop: { at: number; summary: string } | null;
  incidentWebhook: number | null;
  restarts: RestartRecord[];
  /** Gateway process starts seen by uptime after the first one. */
  processStarts: number[];
  unansweredMs: number;
  cooldownAtRecovery: number | null;
  cooldowns: Array<{ seenAt: number; until: number | null }>;
  turns: TimedTurn[];
  /** Breaker transitions, non-routine watchdog decisions, notices: printed, not recorded. */
  story: string[];
  /** Whether every condition the arm waits for after the recovery was met before its deadline. */
  complete: boolean;
}

export interface ArmOptions {
  name: string;
  runtime: OpenClawRuntime;
  desktop: DesktopSession;
  /** Storm restarts on (`watchdog.stormRestart: safe`); false: BreakerBar's defaults (storms waited out). */
  stormRestart: boolean;
  /**
   * How long the provider's 429s carry `Retry-After`, ms after the first 429; then they carry none (the storm
   * outlives its Retry-After). Null: they carry it until the provider recovers. At most `recoverAfterMs`.
   */
  asksForMs: number | null;
  /**
   * When the provider recovers, ms after the first 429. With `waitForRestart`, a restart not yet issued by
   * then moves it to just after the restart is issued (the result's `recoveredAt` says when it was).
   */
  recoverAfterMs: number;
  waitForRestart: boolean;
  /** Longest wait, after the recovery, for a successful attempt, a successful turn and a settled restart. */
  settleMs: number;
  log: (line: string) => void;
}

const UNFINISHED = ['running', 'recovering', 'pending'];

export async function runArm(options: ArmOptions): Promise<ArmResult> {
  const { runtime, desktop, log } = options;
  if (options.asksForMs !== null && options.asksForMs > options.recoverAfterMs)
    throw new Error(`${options.name}: the provider must stop asking (asksForMs) no later than it recovers`);
  const root = mkdtempSync(join(tmpdir(), `bb-bench-recovery-${options.name}-`));
  const stops: Array<() => Promise<void>> = [];
  try {
    const mock = await startMockProvider();
    stops.unshift(() => mock.close());
    mock.steady(MODEL, 'rate_limit');
    mock.retryAfterSeconds = RETRY_AFTER_SEC;
    const gateway = await startGateway({
      runtime,
      root,
      mock,
      providers: [{ id: 'mock', models: [MODEL] }],
      primary: DEP,
      fallbacks: [],
      providerTimeoutSeconds: 90,
    });
    stops.unshift(() => gateway.stop());
    const watchdog = options.stormRestart ? { ...SHORTENED.watchdog, stormRestart: 'safe' } : SHORTENED.watchdog;
    const config = { ...SHORTENED, watchdog };
    const breakerbar = await startBreakerBar({ root, runtime, gateway, desktop, config });
    stops.unshift(() => breakerbar.stop());
    const watch = watchGateway(gateway, DEP);
    stops.unshift(() => watch.stop());
    log(
      `${options.name}: gateway on :${gateway.port}, BreakerBar's watchdog live, storm restarts ${options.stormRestart ? 'on' : 'off (its defaults)'}`,
    );

    const agents = keepSending(gateway, SESSIONS);
    // By then the turns still in flight are waited for already; stopping the gateway ends any left.
    stops.unshift(() => agents.stop(5000));
    await until(() => mock.requests.some((r) => r.answer === 'rate_limit'), 180_000, 'the first 429', 50);
    const t0 = (mock.requests.find((r) => r.answer === 'rate_limit') as { at: number }).at;
    log(`${options.name}: first 429 at ${new Date(t0).toISOString()}`);

    // Requests logged before this index were answered while the provider still sent Retry-After.
    let askedBefore = Number.POSITIVE_INFINITY;
    let asksEndedAt: number | null = null;
    if (options.asksForMs !== null) {
      // Before the recovery (asksForMs ≤ recoverAfterMs): from here the storm's 429s ask for no wait.
      await sleepUntil(t0 + options.asksForMs);
      mock.retryAfterSeconds = null;
      asksEndedAt = Date.now();
      askedBefore = mock.requests.length;
      log(`${options.name}: the provider stops sending Retry-After at +${seconds(asksEndedAt - t0)}`);
    }
    await sleepUntil(t0 + options.recoverAfterMs);
    if (options.waitForRestart && restarts(breakerbar).length === 0) {
      log(
        `${options.name}: no restart issued ${seconds(options.recoverAfterMs)} after the first 429; recovering once one is`,
      );
      await until(() => restarts(breakerbar).length > 0, 300_000, 'a restart', 200).catch(() =>
        log(`${options.name}: still no restart: recovering anyway`),
      );
    }
    mock.steady(MODEL, 'ok');
    const recoveredAt = Date.now();
    log(`${options.name}: provider recovered at +${seconds(recoveredAt - t0)}`);

    const settled = () =>
      mock.requests.some((r) => r.answer === 'ok' && r.at >= recoveredAt) &&
      agents.turns.some((t) => t.startedAt >= recoveredAt && t.exitCode === 0) &&
      restarts(breakerbar).every((r) => !UNFINISHED.includes(r.result));
    let complete = true;
    await until(settled, options.settleMs, 'recovery', 500).catch(() => {
      complete = false;
      log(`${options.name}: not everything recovered within ${seconds(options.settleMs)} of the provider`);
    });
    await agents.stop(90_000);
    await watch.stop();
    const asked = new Set(mock.requests.slice(0, askedBefore));

    return {
      name: options.name,
      stormRestart: options.stormRestart,
      t0,
      recoveredAt,
      asksEndedAt,
      requests: mock.requests
        .filter((r) => r.model === MODEL)
        .map((r) => ({
          at: r.at,
          answer: r.answer,
          retryAfterSec: r.answer === 'rate_limit' && asked.has(r) ? RETRY_AFTER_SEC : null,
        })),
      breakerOut: firstBreakerOut(breakerbar),
      firstDesktop: breakerbar.desktop()[0] ?? null,
      incidentWebhook: breakerbar.webhooks.find((w) => w.kind === 'incident_opened')?.at ?? null,
      restarts: restarts(breakerbar),
      processStarts: watch.starts.slice(1),
      unansweredMs: watch.unansweredMs,
      cooldownAtRecovery: watch.cooldownUntil(recoveredAt),
      cooldowns: [...watch.cooldowns],
      turns: [...agents.turns],
      story: storyOf(breakerbar, t0),
      complete,
    };
  } finally {
    for (const stop of stops) await stop().catch((error: Error) => log(`${options.name}: stopping: ${error.message}`));
    // BREAKERBAR_E2E_KEEP=1 leaves the state, logs and database behind for a look, as in the suite.
    if (process.env.BREAKERBAR_E2E_KEEP !== '1') rmSync(root, { recursive: true, force: true });
    else log(`${options.name}: kept ${root}`);
  }
}

/** The suite's agents: sessions sending turns one after the other (a new session id per turn) until stopped. */
function restarts(breakerbar: BreakerBar): RestartRecord[] {
  return breakerbar.query<RestartRecord>(
    'SELECT ts, trigger, result, command, exit_code, recovery_ms, detail FROM restarts ORDER BY id',
  );
}

function firstBreakerOut(breakerbar: BreakerBar): ArmResult['breakerOut'] {
  const row = breakerbar.query<{ ts: number; to_state: string; reason: string }>(
    "SELECT ts, to_state, reason FROM breaker_transitions WHERE dep = ? AND from_state = 'closed' ORDER BY id LIMIT 1",
    DEP,
  )[0];
  return row ? { at: row.ts, to: row.to_state, reason: storedBreakerReasonLine(row.reason) } : null;
}

function storyOf(breakerbar: BreakerBar, t0: number): string[] {
  const rel = (ts: number) => `+${seconds(ts - t0)}`;
  const lines: Array<[number, string]> = [];
  for (const t of breakerbar.query<{ ts: number; from_state: string; to_state: string; reason: string }>(
    'SELECT ts, from_state, to_state, reason FROM breaker_transitions WHERE dep = ? ORDER BY id',
    DEP,
  ))
    lines.push([t.ts, `breaker ${t.from_state} → ${t.to_state}: ${storedBreakerReasonLine(t.reason)}`]);
  for (const d of breakerbar.query<{ ts: number; source: string; decision: string; reason: string }>(
    "SELECT ts, source, decision, reason FROM watchdog_decisions WHERE decision NOT IN ('ok', 'healthy', 'quiet', 'counting', 'deferred') ORDER BY id",
  ))
    lines.push([d.ts, `decision ${d.source}/${d.decision}: ${storedDecisionReasonLine(d.reason)}`]);
  for (const n of breakerbar.query<{ ts: number; kind: string; channel: string; title: string }>(
    'SELECT ts, kind, channel, title FROM notifications ORDER BY id',
  ))
    lines.push([n.ts, `notice ${n.channel} ${n.kind}: ${n.title}`]);
  return lines.sort((a, b) => a[0] - b[0]).map(([ts, text]) => `${rel(ts)} ${text}`);
}

function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
