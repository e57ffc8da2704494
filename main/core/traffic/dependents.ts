/**
 * Which agents call which dependencies, so that while a breaker is open the
 * status can say who depends on it alone: those agents have no fallback in the
 * data seen, and their traffic is burned on a dead path.
 */
const REMEMBER_MS = 24 * 3_600_000;

export class AgentDependencies {
  /** agent → dependency → last event time. */
  private readonly seen = new Map<string, Map<string, number>>();

  record(agentId: string, dep: string, ts: number): void {
    let deps = this.seen.get(agentId);
    if (!deps) {
      deps = new Map();
      this.seen.set(agentId, deps);
    }
    deps.set(dep, Math.max(ts, deps.get(dep) ?? 0));
  }

  /** Agents whose only dependency in the last day is `dep`. */
  soleDependents(dep: string, now: number): string[] {
    const out: string[] = [];
    for (const [agentId, deps] of this.seen) {
      const recent = [...deps].filter(([, ts]) => ts >= now - REMEMBER_MS).map(([d]) => d);
      if (recent.length === 1 && recent[0] === dep) out.push(agentId);
    }
    return out.sort();
  }
}
