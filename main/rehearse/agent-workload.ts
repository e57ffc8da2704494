/**
 * The simulated agents' traffic: at the scenario's rate, requests that call each agent's dependencies (the
 * primary, then its fallbacks after a failure) with the outcomes the faults in force draw, written as OpenClaw
 * writes them (JSONL transcripts, agent databases, or gateway log lines) into the sandbox, and counted for the
 * report. Everything drawn comes from the one seeded `random`, in the same order, so a seed replays a run.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '../core/calls/classify.js';
import { fallbackDecisionLine } from '../simulator/gateway-log-lines.js';
import { agentDatabasePath, OpenClawAgentDb } from '../simulator/openclaw-db.js';
import { assistantMessage, sessionHeader, userMessage } from '../simulator/records.js';
import { activeFaults, type GatewayStall, pickOutcome } from './fault-injection.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import type { Sandbox } from './sandbox.js';
import type { DepFault, Scenario } from './scenario.js';
import type { Format, RehearsalReport } from './types.js';

type Writer = 'jsonl' | 'sqlite' | 'gatewaylog';

/** OpenClaw's fallback-decision reason for each injected outcome. */
const REASONS: Record<Exclude<Outcome, 'ok'>, string> = {
  rate_limited: 'rate_limit',
  overloaded: 'overloaded',
  server_error: 'server_error',
  timeout: 'timeout',
  connection_reset: 'connection',
  aborted: 'aborted',
  auth: 'auth',
  billing: 'billing',
  context_overflow: 'context_overflow',
  other_error: 'unknown',
};
const HTTP: Partial<Record<Outcome, number>> = {
  rate_limited: 429,
  overloaded: 529,
  server_error: 503,
  auth: 401,
  billing: 402,
};

export interface AgentWriter {
  id: string;
  deps: string[];
  weight: number;
  writer: Writer;
  sessionId: string;
  entry: number;
  last: string | null;
  started: boolean;
  /** Scenario second of the agent's last request (its session's last progress). */
  lastCallSec: number | null;
}

function pickAgent(agents: AgentWriter[], r: number): AgentWriter {
  let left = r;
  for (const agent of agents) {
    left -= agent.weight;
    if (left < 0) return agent;
  }
  return agents[agents.length - 1] as AgentWriter;
}

export class AgentWorkload {
  readonly agents: AgentWriter[];
  /** The calls made, as the report counts them (a replay sets its own total). */
  readonly calls: RehearsalReport['calls'] = { total: 0, failed: 0, byDep: {} };
  /** The Retry-After values written: when (scenario s), for which dependency, and how long (wall ms). */
  readonly written: Array<{ t: number; dep: string; retryAfterMs: number }> = [];
  private readonly dbs = new Map<string, OpenClawAgentDb>();
  /** Requests made so far (or skipped by a stall). */
  private done = 0;

  /** Each agent of the scenario writes in one format, `all` sharing them out in turn. */
  constructor(
    private readonly scenario: Scenario,
    format: Format,
    private readonly random: () => number,
    private readonly clock: RehearsalClock,
    private readonly sandbox: Pick<Sandbox, 'openclawDir' | 'appendGatewayLog'>,
  ) {
    const writers: Writer[] = format === 'all' ? ['jsonl', 'sqlite', 'gatewaylog'] : [format];
    const totalWeight = scenario.agents.reduce((sum, a) => sum + (a.weight ?? 1), 0);
    this.agents = scenario.agents.map((a, i) => ({
      id: a.id,
      deps: a.deps,
      weight: (a.weight ?? 1) / totalWeight,
      writer: writers[i % writers.length] as Writer,
      sessionId: randomUUID(),
      entry: 0,
      last: null,
      started: false,
      lastCallSec: null,
    }));
  }

  /**
   * The requests due by scenario second `sec` at the scenario's rate (none when `generate` is off: a replay
   * writes the traffic), with the faults in force then.
   */
  tick(sec: number, generate: boolean, stall: GatewayStall): void {
    const due = generate ? Math.floor(this.scenario.rate * sec) - this.done : 0;
    const faults = activeFaults(this.scenario.phases, sec);
    if (stall.active(sec)) {
      // A stuck gateway makes no upstream call; the requests it would have made are not made later either.
      stall.report(sec, this.agents);
    } else {
      for (let i = 0; i < Math.min(due, 500); i++) {
        this.request(pickAgent(this.agents, this.random()), faults);
      }
    }
    this.done += Math.max(0, due);
  }

  /** One agent request: the primary, then each fallback after a failure, as OpenClaw tries them. */
  private request(agent: AgentWriter, faults: Record<string, DepFault>): void {
    const { calls, clock, random } = this;
    const ts = clock.wallNow();
    agent.lastCallSec = clock.now();
    const lines: string[] = [];
    const logLines: string[] = [];
    const link = () => {
      const parentId = agent.last;
      agent.entry++;
      agent.last = `${agent.sessionId.slice(0, 8)}-${agent.entry.toString(16).padStart(6, '0')}`;
      return { id: agent.last, parentId };
    };
    if (!agent.started) {
      agent.started = true;
      if (agent.writer !== 'gatewaylog') lines.push(sessionHeader(agent.sessionId, ts));
    }
    if (agent.writer !== 'gatewaylog') {
      const question = link();
      lines.push(userMessage(question.id, question.parentId, ts, 'Summarise the open issues.'));
    }
    for (let i = 0; i < agent.deps.length; i++) {
      const dep = agent.deps[i] as string;
      const fault = faults[dep];
      const injected = pickOutcome(fault, random);
      const midStream = injected === 'aborted_mid_stream';
      const outcome: Outcome = midStream ? 'connection_reset' : injected;
      const stat = calls.byDep[dep] ?? { calls: 0, failed: 0 };
      calls.byDep[dep] = stat;
      stat.calls++;
      calls.total++;
      if (outcome !== 'ok') {
        stat.failed++;
        calls.failed++;
      }
      const retryAfterMs = outcome === 'rate_limited' && fault?.retryAfterSec ? clock.toWallMs(fault.retryAfterSec) : 0;
      if (retryAfterMs > 0) this.written.push({ t: clock.now(), dep, retryAfterMs });
      const last = i === agent.deps.length - 1;
      if (agent.writer === 'gatewaylog') {
        logLines.push(
          fallbackDecisionLine({
            ts,
            decision: outcome === 'ok' ? 'candidate_succeeded' : 'candidate_failed',
            requested: agent.deps[0] as string,
            candidate: dep,
            reason: outcome === 'ok' ? null : REASONS[outcome],
            httpCode: HTTP[outcome],
            attempt: i + 1,
            total: agent.deps.length,
            final: outcome === 'ok' ? 'succeeded' : last ? 'chain_exhausted' : 'next_fallback',
            next: outcome !== 'ok' && !last ? agent.deps[i + 1] : undefined,
            sessionKey: `agent:${agent.id}:main`,
            sessionId: agent.sessionId,
          }),
        );
      } else {
        const [provider = dep, model = dep] = [dep.slice(0, dep.indexOf('/')), dep.slice(dep.indexOf('/') + 1)];
        let line = assistantMessage({
          ...link(),
          ts,
          provider,
          model,
          outcome,
          // Sample 0 of rate_limited has no Retry-After; sample 1 has one, rewritten to the scaled value.
          sample: outcome === 'rate_limited' ? (retryAfterMs > 0 ? 1 : 0) : outcome === 'server_error' ? 0 : 1,
          totalTokens: outcome === 'ok' ? 800 + Math.floor(random() * 3000) : midStream ? 300 : 0,
          text: outcome === 'ok' ? 'Here is the summary you asked for.' : midStream ? 'Here is the summ' : undefined,
        });
        if (retryAfterMs > 0) {
          const record = JSON.parse(line) as { message: Record<string, unknown> };
          record.message.errorRetryAfterMs = Math.max(1, Math.round(retryAfterMs));
          line = JSON.stringify(record);
        }
        lines.push(line);
      }
      if (outcome === 'ok') break;
    }
    this.write(agent, ts, lines, logLines);
  }

  /** A request's records, where the agent's format puts them. */
  private write(agent: AgentWriter, ts: number, lines: string[], logLines: string[]): void {
    if (agent.writer === 'jsonl') {
      const dir = join(this.sandbox.openclawDir, 'agents', agent.id, 'sessions');
      mkdirSync(dir, { recursive: true });
      appendFileSync(join(dir, `${agent.sessionId}.jsonl`), `${lines.join('\n')}\n`);
    } else if (agent.writer === 'sqlite') {
      let db = this.dbs.get(agent.id);
      if (!db) {
        db = new OpenClawAgentDb(agentDatabasePath(this.sandbox.openclawDir, agent.id));
        this.dbs.set(agent.id, db);
      }
      db.append(agent.sessionId, agent.id, lines, ts);
    } else {
      this.sandbox.appendGatewayLog(ts, logLines);
    }
  }

  /** Closes the agent databases it opened. */
  close(): void {
    for (const db of this.dbs.values()) db.close();
  }
}
