/**
 * What one check hands the watchdog policy: the rate-limited calls stored since the last check, per
 * dependency with its Retry-After, OpenClaw's cooldown and the fallbacks answering for it; the dependencies
 * of the storm being counted, asked about again when they are quiet; and the sessions the gateway reports
 * stalled. It remembers where the count stopped, so that a restarted BreakerBar counts on from there.
 */
import type { StormEvidence } from '../store/gateway-history.js';
import type { WatchdogPolicy } from './policy.js';
import type { CheckInput } from './policy-inputs.js';
import type { WatchdogClocks } from './watchdog-clocks.js';
import type { WatchdogOptions } from './watchdog-options.js';

export const META_LAST_CALL = 'watchdog.lastCallId';

export class CheckEvidence {
  private lastCallId = 0;
  /** Per dependency of the storm being counted, the agents it hit: asked about again in quiet checks. */
  private readonly stormAgents = new Map<string, string[]>();
  /** Why the storm count's position could not be stored, said once until it can. */
  private lastCallNotKept: string | null = null;

  constructor(
    private readonly options: WatchdogOptions,
    private readonly policy: WatchdogPolicy,
    private readonly clocks: WatchdogClocks,
  ) {}

  /** The first check counts calls stored from now on; later starts continue where the last one stopped. */
  start(): void {
    const { store, history } = this.options;
    this.lastCallId = Number(store.getOrInitMeta(META_LAST_CALL, String(history.lastCallId())));
  }

  /**
   * Keeps where the storm count stopped, for the next start. Best effort: a store that cannot be written
   * (a full disk) must not stop the watchdog judging what it already counted; the next start then counts
   * from an older position, which a storm restarts from anyway.
   */
  private rememberLastCall(id: number): void {
    try {
      this.options.store.setMeta(META_LAST_CALL, String(id));
      this.lastCallNotKept = null;
    } catch (error) {
      if (this.options.writes?.failed(error, 'where the storm count stopped')) return;
      const message = (error as Error).message;
      if (this.lastCallNotKept !== message) {
        this.options.log.warn('could not store where the storm count stopped; counting goes on', { error: message });
      }
      this.lastCallNotKept = message;
    }
  }

  /** This check's evidence, and the dependencies with new calls in it (for `counted`, once the policy has judged). */
  gather(): { input: CheckInput; fresh: StormEvidence['byDep'] } {
    const { history, settings, clock } = this.options;
    const wall = clock();
    const evidence = history.stormEvidence(this.lastCallId, wall - settings.windowMs);
    this.lastCallId = evidence.lastId;
    this.rememberLastCall(evidence.lastId);
    const mono = (until: number | null) => (until === null ? null : this.clocks.toMono(until));
    // The storm's dependencies with no new calls are asked about too: a quiet check while their Retry-After
    // holds the gateway back must not end the storm (the policy's `waitingOut`).
    const quietStormDeps = [...this.stormAgents]
      .filter(([dep]) => !evidence.byDep.some((d) => d.dep === dep))
      .map(([dep, agents]) => ({ dep, count: 0, agents }));
    const input: CheckInput = {
      deps: [...evidence.byDep, ...quietStormDeps].map(({ dep, count, agents }) => ({
        dep,
        count,
        retryAfterUntil: mono(this.retryAfterUntil(dep, wall)),
        cooldownUntil: mono(this.options.cooldownUntil?.(dep, wall) ?? null),
        workingFallbacks: history.workingFallbacks(dep, agents, wall - settings.windowMs),
      })),
      stalled: this.stalled(),
    };
    return { input, fresh: evidence.byDep };
  }

  /** After the policy's check: the storm's dependencies, with their agents, while it counts them. */
  counted(fresh: StormEvidence['byDep']): void {
    for (const { dep, count, agents } of fresh) if (count > 0) this.stormAgents.set(dep, agents);
    const counting = new Set(this.policy.stormDeps());
    for (const dep of this.stormAgents.keys()) if (!counting.has(dep)) this.stormAgents.delete(dep);
  }

  /**
   * Sessions the gateway reports stalled, while no upstream attempt has been made since the first report:
   * the evidence of a hung gateway. Null when any call came after it (the gateway is making progress).
   */
  private stalled(): CheckInput['stalled'] {
    let sessions = 0;
    let since = Number.POSITIVE_INFINITY;
    const deps: string[] = [];
    const processStart = this.policy.state().processStart;
    for (const stall of this.options.stalled()) {
      // Reported by a gateway process that has since been replaced: its runs went with it.
      if (processStart !== null && this.clocks.toMono(stall.reportedAt, true) < processStart) continue;
      sessions += stall.sessions;
      since = Math.min(since, stall.since);
      if (stall.dep !== null) deps.push(stall.dep);
    }
    if (sessions === 0) return null;
    const lastCall = this.options.history.lastCallTs();
    if (lastCall !== null && lastCall > since) since = lastCall;
    return { sessions, deps, since: this.clocks.toMono(since, true) };
  }

  /** The latest Retry-After deadline in force for a dependency's breaker(s). */
  private retryAfterUntil(dep: string, now: number): number | null {
    const key = this.options.breakerKey(dep);
    let until: number | null = null;
    for (const snapshot of this.options.breakers()) {
      const matches = snapshot.dep === key || snapshot.dep.startsWith(`${key}/`);
      if (matches && snapshot.retryAfterUntil !== null && snapshot.retryAfterUntil > now) {
        until = Math.max(until ?? 0, snapshot.retryAfterUntil);
      }
    }
    return until;
  }
}
