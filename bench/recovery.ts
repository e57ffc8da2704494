/**
 * MTTR after a 429 storm, on the real gateway: the storm of `test/e2e/openclaw/recovery.test.ts` run twice in
 * one run, once with BreakerBar's watchdog acting (live, the test's config) and once the same storm with the
 * watchdog off (`watchdog.enabled: false`: BreakerBar still watching and notifying), the provider recovering
 * at the same moment after the first 429 in both. Printed and recorded for each: first 429 → breaker out of
 * `closed`, → first alert (desktop, webhook), the restart (issued, OpenClaw restarted), provider recovered →
 * first successful upstream attempt and → first successful turn, and the turns that failed meanwhile.
 *
 * Nothing is shortened by `--quick`: there is no corpus, only a storm whose clocks are the provider's
 * Retry-After and OpenClaw's cooldowns, so a quick run skips this benchmark.
 */
import { spawnSync } from 'node:child_process';
import { type DesktopSession, startDesktopSession } from '../test/e2e/openclaw/harness/desktop-session.js';
import { ensureOpenClaw } from '../test/e2e/openclaw/harness/runtime.js';
import { type ArmResult, DEP, RETRY_AFTER_SEC, runArm, SESSIONS, seconds } from './recovery-arm.js';
import { machine, recordSection, summarize } from './report.js';

const VERSION = '2026.9.6';
/**
 * When the provider recovers, after the first 429. The acting arm's restart was issued ~156 s after the first
 * 429 in the suite (three storm checks, the count reset once by a late retry, then the 30 s hold): 170 s lets
 * it be issued first. Should it come later, the acting arm recovers right after it and the other arm uses the
 * same moment.
 */
const RECOVER_AFTER_MS = 170_000;
/** Longest wait after the recovery for a successful attempt and turn (OpenClaw's cooldown may still run). */
const SETTLE_MS = 420_000;
const TOOLS = ['notify-send', 'dunst', 'xvfb-run', 'dbus-daemon', 'dbus-send'];
/** Differences within this are noise here (the probes and checks run every 1–5 s). */
const SAME_MS = 3000;

export async function recoveryBench({ quick }: { quick: boolean }): Promise<void> {
  if (quick) {
    process.stdout.write(
      'skipped under --quick: nothing to shrink (two ~5 min storms on a real gateway, timed by the provider and OpenClaw); run `npm run bench -- recovery`\n',
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
  let acting: ArmResult;
  let off: ArmResult;
  try {
    desktop = await startDesktopSession();
    acting = await runArm({
      name: 'acting',
      runtime,
      desktop,
      watchdog: true,
      recoverAfterMs: RECOVER_AFTER_MS,
      waitForRestart: true,
      settleMs: SETTLE_MS,
      log,
    });
    print(acting);
    off = await runArm({
      name: 'off',
      runtime,
      desktop,
      watchdog: false,
      recoverAfterMs: acting.recoveredAt - acting.t0,
      waitForRestart: false,
      settleMs: SETTLE_MS,
      log,
    });
    print(off);
  } finally {
    await desktop?.stop();
  }
  report(acting, off);
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
  /** When OpenClaw's next retry was due, after the recovery: the last 429 before it + the Retry-After. */
  retryDue: number | null;
  firstOkAttempt: number | null;
  firstOkTurnEnded: number | null;
  firstOkTurnStartedAfter: number | null;
  mttr: number | null;
  rateLimited: number;
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
  const limitedBefore = arm.requests.filter((q) => q.answer === 'rate_limit' && q.at < r).map((q) => q.at);
  const lastLimited = limitedBefore.length === 0 ? null : Math.max(...limitedBefore);
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
    retryDue: lastLimited === null ? null : lastLimited + RETRY_AFTER_SEC * 1000 - r,
    firstOkAttempt: after(arm.requests.find((q) => q.answer === 'ok' && q.at >= r)?.at),
    firstOkTurnEnded: after(firstOkEnd),
    firstOkTurnStartedAfter: after(firstOkStartedAfter),
    mttr: rel(firstOkEnd),
    rateLimited: arm.requests.filter((q) => q.answer === 'rate_limit').length,
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
    `\n${arm.name} (watchdog ${arm.watchdog ? 'acting' : 'off'}): first 429 → breaker out ${s(f.breakerOut)}, → desktop ${s(f.desktop)}, → webhook ${s(f.webhook)}; ` +
      `restart ${f.restartIssued === null ? 'none' : `${plus(f.restartIssued)} ${f.restartFlavour} ${f.restartResult}, OpenClaw restarted ${plus(f.processRestarted)}`}; ` +
      `recovered ${plus(f.recovered)} → first ok attempt ${s(f.firstOkAttempt)}, → first ok turn ${s(f.firstOkTurnEnded)}${arm.complete ? '' : ' (incomplete)'}\n`,
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

export function report(acting: ArmResult, off: ArmResult): void {
  const a = figures(acting);
  const o = figures(off);
  const row = (name: string, x: string, y: string, d = '') => `| ${name} | ${x} | ${y} | ${d} |`;
  const turnDelta =
    a.firstOkTurnEnded !== null && o.firstOkTurnEnded !== null ? a.firstOkTurnEnded - o.firstOkTurnEnded : null;
  const attemptDelta =
    a.firstOkAttempt !== null && o.firstOkAttempt !== null ? a.firstOkAttempt - o.firstOkAttempt : null;
  const phase = `OpenClaw's retry of the runs in flight was due ${s(a.retryDue)} after the recovery with the watchdog acting and ${s(o.retryDue)} without (the last 429 before it + ${RETRY_AFTER_SEC} s)`;
  let verdict: string;
  if (a.restartIssued === null)
    verdict = 'The acting arm issued no restart, so this run compares nothing: see the timelines printed.';
  else if (turnDelta === null || attemptDelta === null || a.mttr === null)
    verdict = `One arm did not recover within ${seconds(SETTLE_MS)} of the provider: see the timelines printed.`;
  else if (a.processRestarted === null || a.mttr < a.processRestarted)
    verdict = `The restart played **no part** in the recovery: with the watchdog acting the first successful turn ended ${a.processRestarted === null ? 'and OpenClaw never restarted' : `${s(a.processRestarted - a.mttr)} before OpenClaw restarted`}. In both arms it was a run in flight through the storm that OpenClaw itself retried at the provider's Retry-After pace; ${phase}, which is the difference between the arms (${diff(a.firstOkTurnEnded, o.firstOkTurnEnded)}).`;
  else if (turnDelta < -SAME_MS)
    verdict = `The restart brought the agents back **${seconds(-turnDelta)} sooner** (first successful turn after the provider recovered; the first successful upstream attempt ${diff(a.firstOkAttempt, o.firstOkAttempt)}); ${phase}.`;
  else if (turnDelta > SAME_MS)
    verdict = `The restart did **not** help: with it the first successful turn came **${seconds(turnDelta)} later** than without it (the first successful upstream attempt ${diff(a.firstOkAttempt, o.firstOkAttempt)}); ${phase}.`;
  else
    verdict = `The restart did **not** help: the first successful turn came within ${seconds(SAME_MS)} of the same time with and without it (${diff(a.firstOkTurnEnded, o.firstOkTurnEnded)}); ${phase}.`;
  if (a.restartIssued !== null)
    verdict += ` What the restart did: it took effect ${s(a.restartTookEffect)} after it was issued${a.processRestarted !== null && a.processRestarted > a.recovered ? `, ${s(a.processRestarted - a.recovered)} after the provider had recovered` : ''}; the gateway was unreachable ${s(a.unreachable)} (${s(o.unreachable)} without it), ${a.failedAfterRecovery} turns failed after the recovery (${o.failedAfterRecovery} without it), and the first turn begun after the recovery ended ok ${diff(a.firstOkTurnStartedAfter, o.firstOkTurnStartedAfter)} compared with the arm without it.`;

  const markdown = `## Recovery after a 429 storm: watchdog acting vs. off (\`npm run bench -- recovery\`)

The storm of \`test/e2e/openclaw/recovery.test.ts\`, run twice in one run on ${machine()}: the real
\`openclaw@${VERSION}\` (\`gateway run\`, isolated) against the mock provider, whose only model \`${DEP}\` answers
every request with 429 and \`Retry-After: ${RETRY_AFTER_SEC}\` (no fallback); ${SESSIONS.length} sessions send
\`openclaw agent\` turns one after the other; BreakerBar's daemon (built CLI) beside it with desktop
notifications through libnotify to dunst and a generic webhook, on the suite's shortened config (probes every
2 s, storm checks every 5 s over 10 s, three in a row; the storm restart held at most 30 s for a Retry-After;
incidents after 10 s). **Acting**: the watchdog live (it restarts with \`openclaw gateway restart --safe\`).
**Off**: \`watchdog.enabled: false\`, BreakerBar still watching and notifying. The provider recovers at the same
moment after the first 429 in both (${seconds(acting.recoveredAt - acting.t0)}; ${a.restartIssued === null ? 'the acting arm issued no restart' : a.restartIssued <= a.recovered ? "the acting arm's restart was issued before it" : "the acting arm's restart was issued after it"}). Times count from the first 429'd request the mock received; rows beginning "recovery →" count
from the provider's recovery. A successful turn is an \`openclaw agent\` run exiting 0 (the first one ending after
the recovery, and the first one begun after it); a restart is seen by \`/readyz\`'s uptime going back, polled every
second, and OpenClaw's own cooldowns are read from its state databases.

| figure | watchdog acting | watchdog off | acting − off |
|---|---:|---:|---:|
${row('first 429 → breaker out of `closed`', s(a.breakerOut), s(o.breakerOut), diff(a.breakerOut, o.breakerOut))}
${row('first 429 → first desktop notification', s(a.desktop), s(o.desktop), diff(a.desktop, o.desktop))}
${row('first 429 → `incident_opened` webhook', s(a.webhook), s(o.webhook), diff(a.webhook, o.webhook))}
${row('restart issued (after the first 429)', a.restartIssued === null ? 'none' : `${s(a.restartIssued)} (\`${a.restartFlavour}\`)`, o.restartIssued === null ? 'none' : s(o.restartIssued))}
${row('OpenClaw restarted (uptime reset, after the first 429)', a.processRestarted === null ? 'no' : s(a.processRestarted), o.processRestarted === null ? 'no' : s(o.processRestarted))}
${row('restart issued → OpenClaw restarted', s(a.restartTookEffect), s(o.restartTookEffect))}
${row('restart record: result, recovery time', a.restartIssued === null ? '—' : `${a.restartResult}, ${s(a.recoveryMs)}`, o.restartIssued === null ? '—' : `${o.restartResult}, ${s(o.recoveryMs)}`)}
${row('gateway unreachable (`/readyz` refused, or no answer in 3 s)', s(a.unreachable), s(o.unreachable), diff(a.unreachable, o.unreachable))}
${row('429s the provider sent', String(a.rateLimited), String(o.rateLimited))}
${row('provider recovered (after the first 429)', s(a.recovered), s(o.recovered))}
${row("OpenClaw's own cooldown of the model left at the recovery", a.cooldownLeft === null ? 'none' : s(a.cooldownLeft), o.cooldownLeft === null ? 'none' : s(o.cooldownLeft))}
${row("recovery → OpenClaw's next retry due (last 429 + Retry-After)", s(a.retryDue), s(o.retryDue), diff(a.retryDue, o.retryDue))}
${row('recovery → first successful upstream attempt', s(a.firstOkAttempt), s(o.firstOkAttempt), diff(a.firstOkAttempt, o.firstOkAttempt))}
${row('recovery → first successful turn (ending after it)', s(a.firstOkTurnEnded), s(o.firstOkTurnEnded), diff(a.firstOkTurnEnded, o.firstOkTurnEnded))}
${row('recovery → first successful turn begun after it', s(a.firstOkTurnStartedAfter), s(o.firstOkTurnStartedAfter), diff(a.firstOkTurnStartedAfter, o.firstOkTurnStartedAfter))}
${row('**first 429 → first successful turn (MTTR)**', s(a.mttr), s(o.mttr), diff(a.mttr, o.mttr))}
${row('turns failed from the first 429 to the first successful turn', String(a.failedInStorm), String(o.failedInStorm), String(a.failedInStorm - o.failedInStorm))}
${row('turns failed after the recovery', String(a.failedAfterRecovery), String(o.failedAfterRecovery))}
${row('longest turn (wall time of one `openclaw agent`)', s(a.longestTurn), s(o.longestTurn), diff(a.longestTurn, o.longestTurn))}
${row('turns in all', String(a.turns), String(o.turns))}

${verdict}${acting.complete && off.complete ? '' : ' (An arm hit its deadline before everything it waits for happened.)'}`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('recovery', markdown);
  summarize('recovery', 'MTTR, watchdog acting', s(a.mttr));
  summarize('recovery', 'MTTR, watchdog off', s(o.mttr));
  summarize('recovery', 'recovery → first ok turn, acting − off', diff(a.firstOkTurnEnded, o.firstOkTurnEnded));
  if (!acting.complete || !off.complete) process.exitCode = 1;
}
