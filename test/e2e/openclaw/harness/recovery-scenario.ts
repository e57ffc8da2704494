/**
 * A recovery scenario on the real gateway: a mock provider, a real OpenClaw gateway of its own (so one
 * scenario's history never reaches the next one's backfill) and BreakerBar's daemon beside it, watchdog live;
 * and the readings a scenario's assertions and failure messages make of BreakerBar's database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { storedBreakerReasonLine } from '../../../../main/words/breaker-reasons.js';
import { storedDecisionReasonLine } from '../../../../main/words/decision-reasons.js';
import { until } from '../../../helpers/transcripts.js';
import { type BreakerBar, startBreakerBar } from './breakerbar.js';
import { type DesktopSession, startDesktopSession } from './desktop-session.js';
import { type GatewayOptions, type RealGateway, startGateway, type TurnResult } from './gateway.js';
import { type MockProvider, startMockProvider } from './mock-provider.js';
import type { OpenClawRuntime } from './runtime.js';

export interface Scenario {
  root: string;
  mock: MockProvider;
  gateway: RealGateway;
  breakerbar: BreakerBar;
  /** The desktop session started for this scenario alone, stopped with it. */
  ownDesktop: DesktopSession | null;
}

export interface Decision {
  ts: number;
  source: string;
  decision: string;
  reason: string;
  dep: string | null;
}

export interface RestartRow {
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

export interface IncidentRow {
  id: number;
  opened_at: number;
  closed_at: number | null;
  causes: string;
  deps: string;
  restarts: number;
}

export interface NotificationRow {
  ts: number;
  kind: string;
  channel: string;
  title: string;
  ok: number;
}

export type ScenarioGateway = Pick<GatewayOptions, 'providers' | 'primary' | 'fallbacks'> &
  Partial<Pick<GatewayOptions, 'providerTimeoutSeconds' | 'turnTimeoutSeconds'>>;

export interface ScenarioSpec {
  /** Names its temp folder. */
  name: string;
  gateway: ScenarioGateway;
  /** BreakerBar's config (what the scenario shortens or turns on; every other key keeps its default). */
  config: Record<string, unknown>;
  /** The mock provider's answers, set before the gateway starts. */
  prepare?: (mock: MockProvider) => void;
  /** Config that names the gateway (its start command): merged over `config`. */
  configFor?: (gateway: RealGateway) => Record<string, unknown>;
  /**
   * Where its desktop notices go (what the daemon showed is told apart by when it started). A scenario that
   * runs beside another one leaves it out and gets a desktop of its own.
   */
  desktop?: DesktopSession;
}

/**
 * Starts a scenario. Without a `desktop` in `spec` it gets one of its own, stopped with it. With `onTestFinished`
 * (the test's own, from its context) it is stopped when the test ends, however it ends.
 */
export async function startScenario(
  runtime: OpenClawRuntime,
  spec: ScenarioSpec,
  onTestFinished?: (stop: () => Promise<void>) => void,
): Promise<Scenario> {
  const root = mkdtempSync(join(tmpdir(), `bb-recovery-${spec.name}-`));
  const ownDesktop = spec.desktop ? null : await startDesktopSession();
  const desktop = spec.desktop ?? (ownDesktop as DesktopSession);
  const mock = await startMockProvider();
  spec.prepare?.(mock);
  let gateway: RealGateway | null = null;
  try {
    gateway = await startGateway({ runtime, root, mock, ...spec.gateway });
    const breakerbar = await startBreakerBar({
      root,
      runtime,
      gateway,
      desktop,
      config: { ...spec.config, ...spec.configFor?.(gateway) },
    });
    const scenario = { root, mock, gateway, breakerbar, ownDesktop };
    onTestFinished?.(() => stopScenario(scenario));
    return scenario;
  } catch (error) {
    await gateway?.stop();
    await mock.close();
    await ownDesktop?.stop();
    throw error;
  }
}

export async function stopScenario(scenario: Scenario): Promise<void> {
  await scenario.breakerbar.stop();
  await scenario.gateway.stop();
  await scenario.mock.close();
  await scenario.ownDesktop?.stop();
  // BREAKERBAR_E2E_KEEP=1 leaves the state, logs and database behind for a look.
  // Retried: a CLI process of the scenario (a turn the gateway never answered) may still be writing its last file.
  if (process.env.BREAKERBAR_E2E_KEEP !== '1')
    rmSync(scenario.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}

/** The restarts as stored, their reason (stored as its code and facts) read back as the policy's line. */
export function restarts(breakerbar: BreakerBar): RestartRow[] {
  return breakerbar
    .query<RestartRow>('SELECT * FROM restarts ORDER BY id')
    .map((row) => ({ ...row, reason: storedDecisionReasonLine(row.reason) }));
}

export function incidents(breakerbar: BreakerBar): IncidentRow[] {
  return breakerbar.query<IncidentRow>('SELECT * FROM incidents ORDER BY id');
}

/** The restart's command after the `openclaw` it ran (stored as a JSON argv). */
export function commandTail(restart: RestartRow | undefined): string[] {
  const argv = JSON.parse(restart?.command ?? '[]') as string[];
  expect(argv[0]).toMatch(/\/openclaw$/);
  return argv.slice(1);
}

export function firstTransition(breakerbar: BreakerBar, dep: string, to: string): boolean {
  return (
    breakerbar.query('SELECT 1 FROM breaker_transitions WHERE dep = ? AND to_state = ? LIMIT 1', dep, to).length > 0
  );
}

export function firstTransitionOut(breakerbar: BreakerBar, dep: string) {
  const [row] = breakerbar.query<{ ts: number; from_state: string; to_state: string }>(
    "SELECT ts, from_state, to_state FROM breaker_transitions WHERE dep = ? AND from_state = 'closed' ORDER BY id LIMIT 1",
    dep,
  );
  if (!row) throw new Error(`the breaker of ${dep} never left closed`);
  return row;
}

/** The watchdog's decisions of these kinds, in order. */
export function decisionKinds(breakerbar: BreakerBar, kinds: readonly string[]): string[] {
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
export async function untilResolved(
  breakerbar: BreakerBar,
  timeoutMs: number,
  story: () => Promise<string>,
): Promise<void> {
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
export function collapse(values: readonly string[]): string[] {
  return values.filter((value, i) => i === 0 || values[i - 1] !== value);
}

export function timelineKinds(breakerbar: BreakerBar, incident: number): string[] {
  return breakerbar
    .query<{ kind: string }>('SELECT kind FROM incident_events WHERE incident_id = ? ORDER BY ts, id', incident)
    .map((row) => row.kind);
}

export function webhookKinds(breakerbar: BreakerBar): string[] {
  return breakerbar.webhooks.map((post) => post.kind);
}

/**
 * The desktop notices, as stored and as the notification daemon showed them: exactly the kinds expected, in
 * order, where a group in `expected` (an array) is kinds whose order among themselves races (two things
 * BreakerBar learns from different sources within the same second).
 */
export function expectDesktop(
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
export async function storyOf(
  breakerbar: BreakerBar,
  mock: MockProvider,
  turns: readonly TurnResult[],
): Promise<string> {
  const t0 = mock.requests[0]?.at ?? 0;
  const rel = (ts: number) => `+${((ts - t0) / 1000).toFixed(1)}s`;
  const lines: string[] = [];
  lines.push(
    `requests: ${mock.requests.length} (${[...new Set(mock.requests.map((r) => `${r.model}:${r.answer}`))].join(', ')})`,
  );
  for (const t of breakerbar.query<{ ts: number; dep: string; from_state: string; to_state: string; reason: string }>(
    'SELECT * FROM breaker_transitions ORDER BY id',
  ))
    lines.push(`${rel(t.ts)} breaker ${t.dep} ${t.from_state} → ${t.to_state}: ${storedBreakerReasonLine(t.reason)}`);
  for (const d of breakerbar.query<Decision>(
    "SELECT * FROM watchdog_decisions WHERE decision NOT IN ('ok') ORDER BY id",
  ))
    lines.push(`${rel(d.ts)} decision ${d.source}/${d.decision}: ${storedDecisionReasonLine(d.reason)}`);
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
