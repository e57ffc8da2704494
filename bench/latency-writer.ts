/**
 * The gateway's side of the latency benchmark, in its own process: appends
 * OpenClaw records to transcripts on command. Each call's record time is taken
 * just before its line is written, so "stored at − record time" bounds the
 * latency from above.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { agentDatabasePath, OpenClawAgentDb } from '../main/rehearse/openclaw-db.js';
import { seededRandom } from '../main/rehearse/records.js';
import { SessionScript } from '../main/rehearse/workload.js';

export type TranscriptFormat = 'jsonl' | 'sqlite';

export type WriterCommand =
  | { kind: 'setup'; stateDir: string; sessions: number; format: TranscriptFormat }
  | { kind: 'steady'; durationMs: number; minGapMs: number; maxGapMs: number }
  | { kind: 'burst'; turns: number; files: number };

const random = seededRandom(11);
/** Where a session's records go: appended to its JSONL file, or inserted into its agent's database. */
const sessions: Array<{ script: SessionScript; write: (lines: readonly string[]) => void }> = [];
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
  const path = join(dir, `${id}.jsonl`);
  // One write per line, as the gateway appends them.
  return (lines: readonly string[]) => {
    for (const line of lines) appendFileSync(path, `${line}\n`);
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
      for (let i = 0; i < command.sessions; i++) {
        const agent = `agent${i % 4}`;
        const id = `lat-${i.toString().padStart(4, '0')}-0000-4000-8000-000000000000`;
        const script = new SessionScript(id, random, { deps: DEPS, failureRate: 0.2, textChars: 1500 });
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
  }
}

process.on('message', (command: WriterCommand) => {
  run(command).then((calls) => process.send?.({ calls }));
});
