/**
 * Why a breaker moved, stored and carried as a code and its facts (never as a
 * sentence), and worded only when read: in the reader's language for the
 * dashboard and the CLI (`wordBreakerReason`), and in the engine's terse English
 * for the log and the rehearsal report (`breakerReasonLine`).
 *
 * The store keeps a reason as the JSON of its code and facts in the `reason`
 * column it always had (no migration). Rows written before hold an English line
 * instead: `decodeBreakerReason` reads those as `{ code: 'text' }`, and the
 * reader's wording re-words the forms the engine used to write (a store of
 * yesterday's transitions reads in Chinese too) and shows any other text as it
 * was stored, so nothing is lost. A peer host's reason arrives over the fleet
 * link as such a line, and is read the same way.
 */
import type { Translator } from './messages/index.js';
import { OUTCOMES } from './outcomes.js';
import { decodeCoded, encodeCoded } from './stored-codes.js';

/** What an operator did to a breaker by hand. */
export type BreakerControl = 'force_open' | 'force_closed' | 'reset';

export type BreakerReason =
  | { code: 'initial' }
  | { code: 'cooldown-over' }
  | { code: 'retry-after-over' }
  | { code: 'answered'; while: 'open' | 'throttled' }
  | { code: 'consecutive-failures'; n: number }
  | { code: 'failure-rate'; failures: number; calls: number; windowMs: number }
  /** `cappedMs`: the wait honoured when the asked one was longer than the cap, else null. */
  | { code: 'retry-after'; askedMs: number; cappedMs: number | null }
  | { code: 'trials-passed'; n: number }
  | { code: 'trial-failed'; outcome: string; askedMs: number | null; cappedMs: number | null }
  /** `note`: what the operator wrote, their own words. */
  | { code: 'operator'; note: string }
  /** Another host's breaker tripped: its state, its host and its reason (a line, as the fleet link carries it). */
  | { code: 'peer'; state: 'open' | 'throttled'; host: string; said: string }
  /** A row stored before reasons were codes, or any line from elsewhere: shown as it is. */
  | { code: 'text'; text: string };

export type BreakerReasonCode = BreakerReason['code'];

export const BREAKER_REASON_CODES: readonly BreakerReasonCode[] = [
  'initial',
  'cooldown-over',
  'retry-after-over',
  'answered',
  'consecutive-failures',
  'failure-rate',
  'retry-after',
  'trials-passed',
  'trial-failed',
  'operator',
  'peer',
  'text',
];

/** How a reason is kept in the store's `reason` column: its code and facts as JSON (a legacy line stays a line). */
export function encodeBreakerReason(reason: BreakerReason): string {
  return encodeCoded(reason);
}

/** A stored `reason` column read back: a coded reason, or the English line an older BreakerBar stored. */
export function decodeBreakerReason(stored: string): BreakerReason {
  return decodeCoded<BreakerReason>(stored, BREAKER_REASON_CODES);
}

/** A stored `reason` column as the engine's English line (for logs, reports and tools that read the store). */
export function storedBreakerReasonLine(stored: string): string {
  return breakerReasonLine(decodeBreakerReason(stored));
}

/**
 * `120 s`, `1.5 s`: the engine's English line states times in seconds, as it always has, so a log searched
 * for a reason finds the same words before and after reasons became codes.
 */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function retryAfterLine(askedMs: number, cappedMs: number | null): string {
  return `Retry-After ${seconds(askedMs)}${cappedMs === null ? '' : ` (capped at ${seconds(cappedMs)})`}`;
}

/** The English line of a reason, for the log, notifications' bodies and the rehearsal report. */
export function breakerReasonLine(reason: BreakerReason): string {
  switch (reason.code) {
    case 'initial':
      return 'initial state';
    case 'cooldown-over':
      return 'cooldown over';
    case 'retry-after-over':
      return 'Retry-After over';
    case 'answered':
      return `answered while ${reason.while}`;
    case 'consecutive-failures':
      return `${reason.n} consecutive failures`;
    case 'failure-rate': {
      const pct = Math.round((reason.failures / reason.calls) * 100);
      return `${reason.failures} of ${reason.calls} calls failed (${pct}%) in ${seconds(reason.windowMs)}`;
    }
    case 'retry-after':
      return `rate limited, ${retryAfterLine(reason.askedMs, reason.cappedMs)}`;
    case 'trials-passed':
      return `${reason.n} successful trial${reason.n === 1 ? '' : 's'}`;
    case 'trial-failed':
      return `trial failed: ${reason.outcome}${reason.askedMs === null ? '' : `, ${retryAfterLine(reason.askedMs, reason.cappedMs)}`}`;
    case 'operator':
      return `operator: ${reason.note}`;
    case 'peer':
      return `${reason.state} on ${reason.host}: ${reason.said}`;
    case 'text':
      return reason.text;
  }
}

const OUTCOME_WORDS = new Set<string>(OUTCOMES);

/** An outcome as people say it ("rate limited", "限流"); an unknown one as it came. */
export function outcomeWords(outcome: string, t: Translator): string {
  return OUTCOME_WORDS.has(outcome)
    ? t.t(`dashboard.outcome.${outcome}` as 'dashboard.outcome.ok')
    : outcome.replace(/_/g, ' ');
}

/** Why a breaker is where it is, in the reader's language. */
export function wordBreakerReason(reason: BreakerReason, t: Translator): string {
  switch (reason.code) {
    case 'initial':
      return t.t('dashboard.why.initial');
    case 'cooldown-over':
      return t.t('dashboard.why.waitOver');
    case 'retry-after-over':
      return t.t('dashboard.why.retryAfterOver');
    case 'answered':
      return t.t('dashboard.why.answered');
    case 'consecutive-failures':
      return t.t('dashboard.why.consecutive', { n: reason.n });
    case 'failure-rate':
      return t.t('dashboard.why.rate', { failures: reason.failures, calls: reason.calls, windowMs: reason.windowMs });
    case 'retry-after':
      return t.t('dashboard.why.retryAfter', { waitMs: reason.askedMs });
    case 'trials-passed':
      return t.t('dashboard.why.recovered', { n: reason.n });
    case 'trial-failed':
      return t.t('dashboard.why.trialFailed', { outcome: outcomeWords(reason.outcome, t) });
    case 'operator':
      return t.t('dashboard.why.operator', { reason: reason.note });
    case 'peer':
      return t.t('dashboard.why.peer', {
        state: t.t(`common.state.${reason.state}`),
        host: reason.host,
        why: wordLegacyLine(reason.said, t),
      });
    case 'text':
      return wordLegacyLine(reason.text, t);
  }
}

/**
 * A line the engine wrote before reasons were codes (a stored row, a peer's reason): the forms it wrote are
 * read back into their codes and worded; any other text is shown as it was stored.
 */
function wordLegacyLine(line: string, t: Translator): string {
  const reason = legacyReason(line);
  return reason === null ? line : wordBreakerReason(reason, t);
}

/** The code an engine line of an older BreakerBar stands for, or null for any other text. */
export function legacyReason(line: string): BreakerReason | null {
  const ms = (s: string | undefined) => Math.round(Number(s) * 1000);
  const forms: Array<[RegExp, (m: RegExpMatchArray) => BreakerReason]> = [
    [/^initial state$/, () => ({ code: 'initial' })],
    [/^cooldown over$/, () => ({ code: 'cooldown-over' })],
    [/^Retry-After over$/, () => ({ code: 'retry-after-over' })],
    [/^answered while (open|throttled)$/, (m) => ({ code: 'answered', while: m[1] as 'open' | 'throttled' })],
    [/^(\d+) consecutive failures$/, (m) => ({ code: 'consecutive-failures', n: Number(m[1]) })],
    [
      /^(\d+) of (\d+) calls failed \(\d+%\) in ([\d.]+) s$/,
      (m) => ({ code: 'failure-rate', failures: Number(m[1]), calls: Number(m[2]), windowMs: ms(m[3]) }),
    ],
    [
      /^rate limited, Retry-After ([\d.]+) s(?: \(capped at ([\d.]+) s\))?$/,
      (m) => ({ code: 'retry-after', askedMs: ms(m[1]), cappedMs: m[2] === undefined ? null : ms(m[2]) }),
    ],
    [/^(\d+) successful trials?$/, (m) => ({ code: 'trials-passed', n: Number(m[1]) })],
    [/^trial failed: (\w+)/, (m) => ({ code: 'trial-failed', outcome: m[1] ?? '', askedMs: null, cappedMs: null })],
    [/^operator: (.*)$/s, (m) => ({ code: 'operator', note: m[1] ?? '' })],
    [
      /^(open|throttled) on ([^:]+): (.*)$/s,
      (m) => ({ code: 'peer', state: m[1] as 'open' | 'throttled', host: m[2] ?? '', said: m[3] ?? '' }),
    ],
  ];
  for (const [pattern, reason] of forms) {
    const match = line.match(pattern);
    if (match) return reason(match);
  }
  return null;
}
