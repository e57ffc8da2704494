/**
 * The gateway's side of the latency and load benchmarks, in its own process
 * (so that the measured process does none of the writing): appends OpenClaw
 * records to transcripts on command. Each call's record time is taken just
 * before its line is written, so "stored at − record time" bounds the latency
 * from above.
 */
import { mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { agentDatabasePath, OpenClawAgentDb } from '../main/simulator/openclaw-db.js';
import { seededRandom } from '../main/simulator/records.js';
import { SessionScript } from '../main/simulator/workload.js';
import { TurnTemplates } from './turn-templates.js';

export type TranscriptFormat = 'jsonl' | 'sqlite';

export type WriterCommand =
  | {
      kind: 'setup';
      stateDir: string;
      sessions: number;
      format: TranscriptFormat;
      /** Agents the sessions are spread over (default 4). */
      agents?: number;
      /** Length of the model's text answers (default 1500). */
      textChars?: number;
      /** Share of calls that fail (default 0.2). */
      failureRate?: number;
    }
  | { kind: 'steady'; durationMs: number; minGapMs: number; maxGapMs: number }
  | { kind: 'burst'; turns: number; files: number }
  /**
   * Turns round-robin over the sessions at a steady rate of calls, paced every few ms; replayed from
   * templates (see turn-templates.ts) so that the writer's own CPU stays small beside the daemon's.
   */
  | { kind: 'rate'; callsPerSecond: number; durationMs: number };

const random = seededRandom(11);
/** Where a session's records go: appended to its JSONL file, or inserted into its agent's database. */
const sessions: Array<{
  script: SessionScript;
  write: (lines: readonly string[]) => void;
  templates?: TurnTemplates;
}> = [];
/** Turns built per session for the rate command's replay. */
const TEMPLATE_TURNS = 32;
const databases = new Map<string, OpenClawAgentDb>();
const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Appends one turn line by line; returns the number of calls written. */
function appendTurn(index: number): number {
  const session = sessions[index % sessions.length];
  if (!session) return 0;
  // Stamped 3 ms early: the turn's calls carry ts+1 and ts+3, and must not be later than their write.
  const turn = session.script.turn(Date.now() - 3);
  session.write(turn.lines);
  return turn.calls.length;
}

function jsonlWriter(stateDir: string, agent: string, id: string) {
  const dir = join(stateDir, 'agents', agent, 'sessions');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, `${id}.jsonl`), 'a');
  // One write per line, as the gateway appends them (the file kept open: at thousands of lines a second,
  // opening it for every line would cost the writer more than the reader).
  return (lines: readonly string[]) => {
    for (const line of lines) writeSync(fd, `${line}\n`);
  };
}

function sqliteWriter(stateDir: string, agent: string, id: string) {
  let db = databases.get(agent);
  if (!db) {
    db = new OpenClawAgentDb(agentDatabasePath(stateDir, agent));
    databases.set(agent, db);
  }
  const target = db;
  // One transaction per line, as the gateway appends them.
  return (lines: readonly string[]) => {
    for (const line of lines) target.append(id, agent, [line]);
  };
}

async function run(command: WriterCommand): Promise<number> {
  switch (command.kind) {
    case 'setup': {
      const { agents = 4, textChars = 1500, failureRate = 0.2 } = command;
      for (let i = 0; i < command.sessions; i++) {
        const agent = `agent${i % agents}`;
        const id = `lat-${i.toString().padStart(4, '0')}-0000-4000-8000-000000000000`;
        const script = new SessionScript(id, random, { deps: DEPS, failureRate, textChars });
        const write =
          command.format === 'jsonl'
            ? jsonlWriter(command.stateDir, agent, id)
            : sqliteWriter(command.stateDir, agent, id);
        write([script.header(Date.now())]);
        sessions.push({ script, write });
      }
      return 0;
    }
    case 'steady': {
      let calls = 0;
      const end = Date.now() + command.durationMs;
      while (Date.now() < end) {
        calls += appendTurn(Math.floor(random() * sessions.length));
        await sleep(command.minGapMs + random() * (command.maxGapMs - command.minGapMs));
      }
      return calls;
    }
    case 'burst': {
      let calls = 0;
      for (let i = 0; i < command.turns; i++) calls += appendTurn(i % command.files);
      return calls;
    }
    case 'rate': {
      for (const session of sessions) session.templates ??= new TurnTemplates(session.script, TEMPLATE_TURNS);
      const replayTurn = (index: number): number => {
        const session = sessions[index % sessions.length];
        if (!session?.templates) return 0;
        const turn = session.templates.turn(Date.now() - 3);
        session.write(turn.lines);
        return turn.calls;
      };
      let calls = 0;
      let turn = 0;
      const start = Date.now();
      for (let elapsed = 0; elapsed < command.durationMs; elapsed = Date.now() - start) {
        // Catch up to the calls due by now, then let the clock move on.
        const due = (command.callsPerSecond * elapsed) / 1000;
        while (calls < due) calls += replayTurn(turn++);
        await sleep(2);
      }
      return calls;
    }
  }
}

process.on('message', (command: WriterCommand) => {
  run(command).then((calls) => process.send?.({ calls }));
});
