/**
 * The reasons the API carries as a code and its facts (beside the English line), worded for a reader of the
 * CLI. English readers keep the terse English line, the very text the log, the docs and their scripts
 * quote; a reader of another language gets it worded from its code. A row from an older BreakerBar has no
 * code: its line is all there is, so it is shown as it came.
 */
import { type BreakerReason, wordBreakerReason } from '../words/breaker-reasons.js';
import { type DecisionReason, wordDecisionReason } from '../words/decision-reasons.js';
import type { Translator } from '../words/messages/index.js';
import { type ProbeDetail, wordProbeDetail } from '../words/probe-details.js';

/** An English reader reads the line itself: the terse one the log and the docs have. */
function readsTheLine(t: Translator): boolean {
  return t.language === 'en';
}

/** Why the watchdog decided (a decision, a restart, the settling of a restart), in the reader's language. */
export function decisionWords(line: string, why: DecisionReason | undefined, t: Translator): string {
  return why === undefined || readsTheLine(t) ? line : wordDecisionReason(why, t);
}

/** What a health probe found, in the reader's language. */
export function probeWords(line: string, found: ProbeDetail | undefined, t: Translator): string {
  return found === undefined || readsTheLine(t) ? line : wordProbeDetail(found, t);
}

/** Why a breaker moved, in the reader's language. */
export function breakerWords(line: string, why: BreakerReason | undefined, t: Translator): string {
  return why === undefined || readsTheLine(t) ? line : wordBreakerReason(why, t);
}
