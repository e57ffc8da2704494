/**
 * The rule "transcripts cover an agent" (and a dependency): what the transcripts deliver is the truth, so the
 * gateway log's fallback decisions and the gateway's metrics count a call only where no readable transcript
 * already does. Kept for the monitor's whole life, so a restart of its sources keeps what was seen.
 */
import type { CallEvent } from '../calls/events.js';
import type { Store } from '../store/db.js';
import type { Source } from './source.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A dependency seen in transcripts this recently is theirs: gateway metrics do not count it again. */
const TRANSCRIPT_TRUTH_MS = DAY_MS;

export class TranscriptCoverage {
  /** Last record time of a transcript call per dependency (the metrics source's "source of truth" test). */
  private readonly transcriptDeps = new Map<string, number>();
  /** The transcript sources followed now (none before start and after stop). */
  transcriptSources: Source[] = [];

  constructor(private readonly clock: () => number) {}

  /** The dependencies the stored transcripts delivered calls for in the last day, as of `now` (at start). */
  remember(store: Pick<Store, 'recentDependencies'>, now: number): void {
    for (const { dep, ts } of store.recentDependencies(['jsonl', 'sqlite'], now - TRANSCRIPT_TRUTH_MS)) {
      this.transcriptDeps.set(dep, ts);
    }
  }

  /** Calls the transcript sources stored. */
  record(calls: CallEvent[]): void {
    for (const call of calls)
      this.transcriptDeps.set(call.dep, Math.max(call.ts, this.transcriptDeps.get(call.dep) ?? 0));
  }

  /**
   * The gateway log's fallback decisions become calls only for agents whose
   * transcripts BreakerBar cannot read; a line naming no agent counts when no
   * transcript is readable at all.
   */
  coversAgent(agentId: string | null): boolean {
    return this.transcriptSources.some((source) => {
      const agents = source.coveredAgents?.() ?? new Set<string>();
      return agentId === null ? agents.size > 0 : agents.has(agentId);
    });
  }

  /** Transcripts are the source of truth for every dependency they delivered calls for in the last day. */
  coversDependency(dep: string): boolean {
    const last = this.transcriptDeps.get(dep);
    return last !== undefined && last >= this.clock() - TRANSCRIPT_TRUTH_MS && this.coversAgent(null);
  }
}
