/**
 * The gateway's side of the latency benchmark, in its own process: appends
 * OpenClaw records to transcripts on command. Each call's record time is taken
 * just before its line is written, so "stored at − record time" bounds the
 * latency from above.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../main/rehearse/records.js';
import { SessionScript } from '../main/rehearse/workload.js';

export type WriterCommand =
  | { kind: 'setup'; stateDir: string; sessions: number }
  | { kind: 'steady'; durationMs: number; minGapMs: number; maxGapMs: number }
  | { kind: 'burst'; turns: number; files: number };

const random = seededRandom(11);
const sessions: Array<{ path: string; script: SessionScript }> = [];
const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Appends one turn line by line; returns the number of calls written. */
function appendTurn(index: number): number {
  const session = sessions[index % sessions.length];
  if (!session) return 0;
  // Stamped 3 ms early: the turn's calls carry ts+1 and ts+3, and must not be later than their write.
  const turn = session.script.turn(Date.now() - 3);
  for (const line of turn.lines) appendFileSync(session.path, `${line}\n`);
  return turn.calls.length;
}

async function run(command: WriterCommand): Promise<number> {
  switch (command.kind) {
    case 'setup': {
      for (let i = 0; i < command.sessions; i++) {
        const dir = join(command.stateDir, 'agents', `agent${i % 4}`, 'sessions');
        mkdirSync(dir, { recursive: true });
        const id = `lat-${i.toString().padStart(4, '0')}-0000-4000-8000-000000000000`;
        const script = new SessionScript(id, random, { deps: DEPS, failureRate: 0.2, textChars: 1500 });
        const path = join(dir, `${id}.jsonl`);
        appendFileSync(path, `${script.header(Date.now())}\n`);
        sessions.push({ path, script });
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
