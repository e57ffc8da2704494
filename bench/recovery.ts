/**
 * MTTR after a 429 storm, on the real gateway: the storms of `test/e2e/openclaw/recovery-storms.test.ts` in two shapes,
 * each run twice in one run, once with storm restarts on (`watchdog.stormRestart: safe`, the test's config
 * otherwise) and once the same storm on BreakerBar's defaults (storm restarts off: the storm is alerted and
 * waited out), the watchdog live in both, the provider recovering at the same moment after the first 429 in both
 * arms of a shape. It is what a storm restart adds, and why storm restarts are off by default. Two shapes, because
 * a storm restart treats them apart: while the provider asks for a wait (`Retry-After`) with every 429, it is held
 * (each new Retry-After holds it again) and is expected not to run at all; when the storm outlives its Retry-After
 * (the 429s stop asking after a minute and go on), the hold ends and the storm restart comes: the second shape
 * measures what it does.
 * Printed and recorded for each arm: first 429 → breaker out of `closed`, → first alert (desktop, webhook), the
 * restart (issued, OpenClaw restarted), provider recovered → first successful upstream attempt and → first
 * successful turn, and the turns that failed meanwhile.
 *
 * Nothing is shortened by `--quick`: there is no corpus, only storms whose clocks are the provider's
 * Retry-After, BreakerBar's hold and OpenClaw's cooldowns, so a quick run skips this benchmark.
 */
import { spawnSync } from 'node:child_process';
import { configSchema } from '../main/core/config/index.js';
import { defaultsOf } from '../main/core/config/schema.js';
import { type DesktopSession, startDesktopSession } from '../test/e2e/openclaw/harness/desktop-session.js';
import { SHORTENED } from '../test/e2e/openclaw/harness/recovery-config.js';
import { ensureOpenClaw } from '../test/e2e/openclaw/harness/runtime.js';
import { type ArmResult, DEP, RETRY_AFTER_SEC, runArm, SESSIONS, seconds } from './recovery-arm.js';
import { machine, recordSection, summarize } from './report.js';

const VERSION = '2026.9.6';
/** The watchdog's settings in the storms: the defaults under the suite's shortened clocks. */
const WATCHDOG = { ...defaultsOf(configSchema).watchdog, ...SHORTENED.watchdog };
/** In the storm that outlives its Retry-After: how long its 429s ask for a wait, after the first 429. */
const ASKS_FOR_MS = 60_000;

/**
 * A storm shape, run as a pair of arms: storm restarts on (`acting`), then the defaults (`off`), the provider
 * recovering at the same moment.
 */
interface Shape {
  /** In arm names (and their temporary directories). */
  key: string;
  title: string;
  /** What the provider does, for the markdown. */
  storm: string;
  /** See `ArmOptions.asksForMs`: null, the 429s ask for a wait until the provider recovers. */
  asksForMs: number | null;
  /** When the provider recovers, after the first 429 (the off arm takes the acting arm's actual moment). */
  recoverAfterMs: number;
  /** Whether the acting arm's recovery waits for a restart not issued by `recoverAfterMs`. */
  waitForRestart: boolean;
}

const SHAPES: Shape[] = [
  {
    key: 'asking',
    title: 'The provider keeps asking',
    storm: `every 429 carries \`Retry-After: ${RETRY_AFTER_SEC}\` until the provider recovers`,
    asksForMs: null,
    // No restart is expected: each new Retry-After holds it again. 170 s, the moment set in the runs before the
    // policy changed: the storm is judged within ~15 s, then held through several Retry-Afters. No waiting for
    // a restart: the recovery is at this moment in both arms.
    recoverAfterMs: 170_000,
    waitForRestart: false,
  },
  {
    key: 'outlives',
    title: 'The storm outlives its Retry-After',
    storm: `the 429s carry \`Retry-After: ${RETRY_AFTER_SEC}\` for the first ${seconds(ASKS_FOR_MS)} after the first 429, then none (the provider goes on answering 429)`,
    asksForMs: ASKS_FOR_MS,
    // The last ask (by 60 s) holds the restart until its 30 s run out, by 90 s; then the storm check (three
    // checks 5 s apart, the count restarted if a 10 s window had no 429) orders it: ~90–120 s. 150 s lets it be issued first; should
    // it come later, the acting arm recovers right after it and the off arm at the same moment.
    recoverAfterMs: 150_000,
    waitForRestart: true,
  },
];
/** Longest wait after the recovery for a successful attempt and turn (OpenClaw's cooldown may still run). */
const SETTLE_MS = 420_000;
const TOOLS = ['notify-send', 'dunst', 'xvfb-run', 'dbus-daemon', 'dbus-send'];
/** Differences within this are noise here (the probes and checks run every 1–5 s). */
const SAME_MS = 3000;

interface Pair {
  shape: Shape;
  acting: ArmResult;
  off: ArmResult;
}

export async function recoveryBench({ quick }: { quick: boolean }): Promise<void> {
  if (quick) {
    process.stdout.write(
      'skipped under --quick: nothing to shrink (four storms of ~5 min on a real gateway, about 20 min, timed by the provider, BreakerBar and OpenClaw); run `npm run bench -- recovery`\n',
    );
    return;
  }
  const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (Number(process.versions.node.split('.')[0]) < 24 && !(process.platform === 'linux' && process.arch === 'x64'))
    missing.push('node24');
  if (missing.length > 0) {
    process.stdout.write(`skipped: missing ${missing.join(', ')} (see test/helpers/tools.ts for what to install)\n`);
    return;
  }
  const log = (line: string) => process.stdout.write(`  ${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const runtime = await ensureOpenClaw(VERSION);
  let desktop: DesktopSession | null = null;
  const pairs: Pair[] = [];
  try {
    const session = await startDesktopSession();
    desktop = session;
    const arm = async (shape: Shape, stormRestart: boolean, recoverAfterMs: number) => {
      const result = await runArm({
        name: `${shape.key}-${stormRestart ? 'restart-on' : 'defaults'}`,
        runtime,
        desktop: session,
        stormRestart,
        asksForMs: shape.asksForMs,
        recoverAfterMs,
        waitForRestart: stormRestart && shape.waitForRestart,
        settleMs: SETTLE_MS,
        log,
      });
      print(result);
      return result;
    };
    for (const shape of SHAPES) {
      const acting = await arm(shape, true, shape.recoverAfterMs);
      const off = await arm(shape, false, acting.recoveredAt - acting.t0);
      pairs.push({ shape, acting, off });
    }
  } finally {
    await desktop?.stop();
  }
  report(pairs);
}

interface Figures {
  breakerOut: number | null;
  desktop: number | null;
  webhook: number | null;
  restartIssued: number | null;
  restartFlavour: string;
  restartResult: string;
  processRestarted: number | null;
  /** From the restart issued to OpenClaw restarted: the drain. */
  restartTookEffect: number | null;
  recoveryMs: number | null;
  unreachable: number;
  recovered: number;
  cooldownLeft: number | null;
  /** When the provider stopped asking for a wait, after the first 429 (null: it asked until it recovered). */
  asksEnded: number | null;
  /**
   * When OpenClaw's next retry was due by the provider's asking, after the recovery (negative: before it): the
   * last 429 before the recovery that carried a Retry-After + that Retry-After. A 429 without one sets no due time.
   */
  retryDue: number | null;
  firstOkAttempt: number | null;
  firstOkTurnEnded: number | null;
  firstOkTurnStartedAfter: number | null;
  mttr: number | null;
  rateLimited: number;
  /** Of them, the 429s that carried a Retry-After. */
  asked: number;
  turns: number;
  failedInStorm: number;
  failedAfterRecovery: number;
  longestTurn: number | null;
}

function figures(arm: ArmResult): Figures {
  const { t0, recoveredAt: r } = arm;
  const rel = (at: number | null | undefined) => (at === null || at === undefined ? null : at - t0);
  const after = (at: number | null | undefined) => (at === null || at === undefined ? null : at - r);
  const restart = arm.restarts[0];
  const okTurns = arm.turns.filter((t) => t.exitCode === 0);
  const firstOkEnd = min(okTurns.filter((t) => t.endedAt >= r).map((t) => t.endedAt));
  const firstOkStartedAfter = min(okTurns.filter((t) => t.startedAt >= r).map((t) => t.endedAt));
  const failed = arm.turns.filter((t) => t.exitCode !== 0);
  const asking = arm.requests.filter((q) => q.retryAfterSec !== null);
  const lastAsked = asking.filter((q) => q.at < r).at(-1);
  return {
    breakerOut: rel(arm.breakerOut?.at),
    desktop: rel(arm.firstDesktop?.at),
    webhook: rel(arm.incidentWebhook),
    restartIssued: rel(restart?.ts),
    restartFlavour: restart?.command ? (/--(safe|wait|force)\b/.exec(restart.command)?.[0] ?? 'no flavour') : '',
    restartResult: restart?.result ?? '',
    processRestarted: rel(arm.processStarts[0]),
    restartTookEffect: restart && arm.processStarts[0] !== undefined ? arm.processStarts[0] - restart.ts : null,
    recoveryMs: restart?.recovery_ms ?? null,
    unreachable: arm.unansweredMs,
    recovered: r - t0,
    cooldownLeft: arm.cooldownAtRecovery === null ? null : arm.cooldownAtRecovery - r,
    asksEnded: rel(arm.asksEndedAt),
    retryDue:
      lastAsked === undefined || lastAsked.retryAfterSec === null
        ? null
        : lastAsked.at + lastAsked.retryAfterSec * 1000 - r,
    firstOkAttempt: after(arm.requests.find((q) => q.answer === 'ok' && q.at >= r)?.at),
    firstOkTurnEnded: after(firstOkEnd),
    firstOkTurnStartedAfter: after(firstOkStartedAfter),
    mttr: rel(firstOkEnd),
    rateLimited: arm.requests.filter((q) => q.answer === 'rate_limit').length,
    asked: asking.length,
    turns: arm.turns.length,
    failedInStorm: failed.filter((t) => t.endedAt >= t0 && t.endedAt < (firstOkEnd ?? Number.POSITIVE_INFINITY)).length,
    failedAfterRecovery: failed.filter((t) => t.endedAt >= r).length,
    longestTurn: arm.turns.length === 0 ? null : Math.max(...arm.turns.map((t) => t.endedAt - t.startedAt)),
  };
}

function min(values: number[]): number | null {
  return values.length === 0 ? null : Math.min(...values);
}

const s = (ms: number | null) => (ms === null ? '—' : seconds(ms));
const plus = (ms: number | null) => (ms === null ? '—' : `+${seconds(ms)}`);
const diff = (a: number | null, b: number | null) => {
  if (a === null || b === null) return '—';
  const d = a - b;
  if (Math.abs(d) < 50) return seconds(0);
  return `${d > 0 ? '+' : '−'}${seconds(Math.abs(d))}`;
};

function print(arm: ArmResult): void {
  const f = figures(arm);
  process.stdout.write(
    `\n${arm.name} (storm restarts ${arm.stormRestart ? 'on' : 'off, the defaults'}): first 429 → breaker out ${s(f.breakerOut)}, → desktop ${s(f.desktop)}, → webhook ${s(f.webhook)}; ` +
      `restart ${f.restartIssued === null ? 'none' : `${plus(f.restartIssued)} ${f.restartFlavour} ${f.restartResult}, OpenClaw restarted ${plus(f.processRestarted)}`}; ` +
      `${f.asksEnded === null ? '' : `429s without Retry-After from ${plus(f.asksEnded)}; `}recovered ${plus(f.recovered)} → first ok attempt ${s(f.firstOkAttempt)}, → first ok turn ${s(f.firstOkTurnEnded)}${arm.complete ? '' : ' (incomplete)'}\n`,
  );
  for (const line of arm.story) process.stdout.write(`    ${line}\n`);
  const rel = (at: number) => `+${seconds(at - arm.t0)}`;
  process.stdout.write(
    `    429s at ${arm.requests
      .filter((q) => q.answer === 'rate_limit')
      .map((q) => rel(q.at))
      .join(' ')}\n`,
  );
  process.stdout.write(
    `    ok at ${arm.requests
      .filter((q) => q.answer === 'ok')
      .map((q) => rel(q.at))
      .slice(0, 8)
      .join(' ')}\n`,
  );
  process.stdout.write(
    `    OpenClaw cooldown of ${DEP}: ${arm.cooldowns.map((c) => `${rel(c.seenAt)} → ${c.until === null ? 'none' : `until ${rel(c.until)}`}`).join('; ') || 'never seen'}\n`,
  );
  process.stdout.write(
    `    turns: ${arm.turns.map((t) => `${t.sessionId} ${rel(t.startedAt)}..${rel(t.endedAt)}=${t.exitCode}`).join(', ')}\n`,
  );
}

/** When OpenClaw's next retry was due by the provider's asking, relative to the recovery. */
const due = (ms: number | null) =>
  ms === null ? 'never' : ms >= 0 ? `${s(ms)} after the recovery` : `${s(-ms)} before the recovery`;

function verdict({ shape }: Pair, a: Figures, o: Figures): string {
  const turnDelta =
    a.firstOkTurnEnded !== null && o.firstOkTurnEnded !== null ? a.firstOkTurnEnded - o.firstOkTurnEnded : null;
  const turns = `first successful turn after the recovery, restart on − defaults: ${diff(a.firstOkTurnEnded, o.firstOkTurnEnded)}`;
  const phase = `OpenClaw's retry of the runs in flight was due ${due(a.retryDue)} with storm restarts on and ${due(o.retryDue)} on the defaults (the last 429 asking for a wait + its ${RETRY_AFTER_SEC} s)`;
  const mttr = a.mttr;
  const recovered = turnDelta !== null && mttr !== null && a.firstOkAttempt !== null && o.firstOkAttempt !== null;
  const unrecovered = `One arm did not recover within ${seconds(SETTLE_MS)} of the provider: see the timelines printed.`;
  const keptAsking = shape.asksForMs === null;

  if (a.restartIssued === null) {
    if (!keptAsking)
      return 'The arm with storm restarts on issued no restart, so this run compares nothing: see the timelines printed.';
    const held = 'BreakerBar held the restart for as long as the provider asked: **no restart**';
    if (!recovered) return `${held}. ${unrecovered}`;
    const moment =
      Math.abs(turnDelta) <= SAME_MS
        ? 'at the same moment as'
        : `**${seconds(Math.abs(turnDelta))} ${turnDelta < 0 ? 'sooner' : 'later'}** than`;
    return `${held}, and the agents came back ${moment} on the defaults (${turns}); ${phase}.`;
  }

  let text = keptAsking
    ? `The policy did **not** hold: BreakerBar restarted the gateway ${s(a.restartIssued)} after the first 429 although every 429 asked for a wait. `
    : '';
  if (!recovered) text += unrecovered;
  else if (a.processRestarted === null || mttr < a.processRestarted)
    text += `The restart played **no part** in the recovery: with storm restarts on the first successful turn ended ${a.processRestarted === null ? 'and OpenClaw never restarted' : `${s(a.processRestarted - mttr)} before OpenClaw restarted`}. In both arms it was a run in flight through the storm that OpenClaw itself retried (${turns}); ${phase}.`;
  else if (turnDelta < -SAME_MS)
    text += `The restart brought the agents back **${seconds(-turnDelta)} sooner** (first successful turn after the provider recovered; the first successful upstream attempt ${diff(a.firstOkAttempt, o.firstOkAttempt)}); ${phase}.`;
  else if (turnDelta > SAME_MS)
    text += `The restart did **not** help: with it the first successful turn came **${seconds(turnDelta)} later** than on the defaults (the first successful upstream attempt ${diff(a.firstOkAttempt, o.firstOkAttempt)}); ${phase}.`;
  else
    text += `The restart did **not** help: the first successful turn came within ${seconds(SAME_MS)} of the same time with it and on the defaults (${diff(a.firstOkTurnEnded, o.firstOkTurnEnded)}); ${phase}.`;
  return `${text} What the restart did: it took effect ${s(a.restartTookEffect)} after it was issued${a.processRestarted !== null && a.processRestarted > a.recovered ? `, ${s(a.processRestarted - a.recovered)} after the provider had recovered` : ''}; the gateway was unreachable ${s(a.unreachable)} (${s(o.unreachable)} on the defaults), ${a.failedAfterRecovery} turns failed after the recovery (${o.failedAfterRecovery} on the defaults), and the first turn begun after the recovery ended ok ${diff(a.firstOkTurnStartedAfter, o.firstOkTurnStartedAfter)} compared with the defaults.`;
}

function table(pair: Pair): string {
  const { shape, acting, off } = pair;
  const a = figures(acting);
  const o = figures(off);
  const row = (name: string, x: string, y: string, d = '') => `| ${name} | ${x} | ${y} | ${d} |`;
  const signed = (ms: number | null) => (ms === null ? '—' : ms < 0 ? `−${seconds(-ms)}` : seconds(ms));
  const restartMoment =
    a.restartIssued === null
      ? 'the arm with storm restarts on issued no restart'
      : `the storm restart was issued ${a.restartIssued <= a.recovered ? 'before' : 'after'} it`;
  return `### ${shape.title}

The provider recovered ${s(acting.recoveredAt - acting.t0)} after the first 429 in both arms (${shape.waitForRestart ? `set for ${s(shape.recoverAfterMs)}, or once the storm restart was issued if later; ` : 'a fixed moment, no waiting for a restart; '}${restartMoment}).

| figure | storm restart on | defaults (storm restart off) | on − defaults |
|---|---:|---:|---:|
${row('first 429 → breaker out of `closed`', s(a.breakerOut), s(o.breakerOut), diff(a.breakerOut, o.breakerOut))}
${row('first 429 → first desktop notification', s(a.desktop), s(o.desktop), diff(a.desktop, o.desktop))}
${row('first 429 → `incident_opened` webhook', s(a.webhook), s(o.webhook), diff(a.webhook, o.webhook))}
${row('restart issued (after the first 429)', a.restartIssued === null ? 'none' : `${s(a.restartIssued)} (\`${a.restartFlavour}\`)`, o.restartIssued === null ? 'none' : s(o.restartIssued))}
${row('OpenClaw restarted (uptime reset, after the first 429)', a.processRestarted === null ? 'no' : s(a.processRestarted), o.processRestarted === null ? 'no' : s(o.processRestarted))}
${row('restart issued → OpenClaw restarted', s(a.restartTookEffect), s(o.restartTookEffect))}
${row('restart record: result, recovery time', a.restartIssued === null ? '—' : `${a.restartResult}, ${s(a.recoveryMs)}`, o.restartIssued === null ? '—' : `${o.restartResult}, ${s(o.recoveryMs)}`)}
${row('gateway unreachable (`/readyz` refused, or no answer in 3 s)', s(a.unreachable), s(o.unreachable), diff(a.unreachable, o.unreachable))}
${row('429s the provider sent (of them with Retry-After)', `${a.rateLimited} (${a.asked})`, `${o.rateLimited} (${o.asked})`)}
${row('provider stopped sending Retry-After (after the first 429)', a.asksEnded === null ? 'never' : s(a.asksEnded), o.asksEnded === null ? 'never' : s(o.asksEnded))}
${row('provider recovered (after the first 429)', s(a.recovered), s(o.recovered))}
${row("OpenClaw's own cooldown of the model left at the recovery", a.cooldownLeft === null ? 'none' : s(a.cooldownLeft), o.cooldownLeft === null ? 'none' : s(o.cooldownLeft))}
${row("recovery → OpenClaw's next retry due (last 429 with Retry-After + it; − before)", signed(a.retryDue), signed(o.retryDue), diff(a.retryDue, o.retryDue))}
${row('recovery → first successful upstream attempt', s(a.firstOkAttempt), s(o.firstOkAttempt), diff(a.firstOkAttempt, o.firstOkAttempt))}
${row('recovery → first successful turn (ending after it)', s(a.firstOkTurnEnded), s(o.firstOkTurnEnded), diff(a.firstOkTurnEnded, o.firstOkTurnEnded))}
${row('recovery → first successful turn begun after it', s(a.firstOkTurnStartedAfter), s(o.firstOkTurnStartedAfter), diff(a.firstOkTurnStartedAfter, o.firstOkTurnStartedAfter))}
${row('**first 429 → first successful turn (MTTR)**', s(a.mttr), s(o.mttr), diff(a.mttr, o.mttr))}
${row('turns failed from the first 429 to the first successful turn', String(a.failedInStorm), String(o.failedInStorm), String(a.failedInStorm - o.failedInStorm))}
${row('turns failed after the recovery', String(a.failedAfterRecovery), String(o.failedAfterRecovery))}
${row('longest turn (wall time of one `openclaw agent`)', s(a.longestTurn), s(o.longestTurn), diff(a.longestTurn, o.longestTurn))}
${row('turns in all', String(a.turns), String(o.turns))}

${verdict(pair, a, o)}${acting.complete && off.complete ? '' : ' (An arm hit its deadline before everything it waits for happened.)'}`;
}

export function report(pairs: Pair[]): void {
  const markdown = `## Recovery after a 429 storm: storm restart on vs. the defaults (\`npm run bench -- recovery\`)

Two shapes of the 429 storm of \`test/e2e/openclaw/recovery-storms.test.ts\`, each run twice in one run on ${machine()}: the
real \`openclaw@${VERSION}\` (\`gateway run\`, isolated) against the mock provider, whose only model \`${DEP}\` answers
every request with 429 until it recovers (no fallback); ${SESSIONS.length} sessions send \`openclaw agent\` turns one after
the other; BreakerBar's daemon (built CLI) beside it with desktop notifications through libnotify to dunst and a
generic webhook, on the suite's shortened config (probes every ${SHORTENED.health.intervalSec} s, storm checks every ${WATCHDOG.checkIntervalSec} s over ${WATCHDOG.windowSec} s, ${WATCHDOG.threshold}
in a row; incidents after ${SHORTENED.incidents.graceSec} s), the watchdog live in both arms. **Storm restart on**:
\`watchdog.stormRestart: safe\` (it restarts with \`openclaw gateway restart --safe\`), with the default hold: each
Retry-After holds it at most ${WATCHDOG.maxDeferralSec} s from when it was first seen, and each new one holds it again, so
no storm restart runs while the provider keeps asking for a wait. **Defaults**: \`watchdog.stormRestart: ${WATCHDOG.stormRestart}\`,
the storm alerted and waited out. ${pairs.map(({ shape }) => `**${shape.title}**: ${shape.storm}.`).join(' ')} In each shape the provider recovers at the same moment after the first 429 in both arms. Times count
from the first 429'd request the mock received; rows beginning "recovery →" count from the provider's recovery. A
successful turn is an \`openclaw agent\` run exiting 0 (the first one ending after the recovery, and the first one
begun after it); a restart is seen by \`/readyz\`'s uptime going back, polled every second, and OpenClaw's own
cooldowns are read from its state databases.

${pairs.map(table).join('\n\n')}`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('recovery', markdown);
  for (const { shape, acting, off } of pairs) {
    const a = figures(acting);
    const o = figures(off);
    summarize('recovery', `MTTR, ${shape.title.toLowerCase()}, storm restart on`, s(a.mttr));
    summarize('recovery', `MTTR, ${shape.title.toLowerCase()}, defaults`, s(o.mttr));
    summarize(
      'recovery',
      `recovery → first ok turn, ${shape.title.toLowerCase()}, restart on − defaults`,
      diff(a.firstOkTurnEnded, o.firstOkTurnEnded),
    );
  }
  if (pairs.some(({ acting, off }) => !acting.complete || !off.complete)) process.exitCode = 1;
}
