import { writeFileSync } from 'node:fs';
import { runRehearsal } from '../rehearse/rehearsal.js';
import { planReplay, ReplayError, replayScenario } from '../rehearse/replay.js';
import { renderHtml } from '../rehearse/report-html.js';
import { renderText } from '../rehearse/report-text.js';
import { loadScenarioFile, type Scenario, ScenarioError } from '../rehearse/scenario.js';
import { BUILT_IN_SCENARIOS, builtInScenario } from '../rehearse/scenarios.js';
import { FORMATS, type Format, type Progress, type RehearsalReport } from '../rehearse/types.js';
import { type Command, type Io, stringOption, UsageError } from './command.js';

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} "${value}" is not a positive number`);
  return n;
}

function scenariosFrom(names: string[], all: boolean): Scenario[] {
  const out: Scenario[] = all ? [...BUILT_IN_SCENARIOS] : [];
  for (const name of names) {
    const builtIn = builtInScenario(name);
    if (builtIn) out.push(builtIn);
    else if (/\.json5?$/i.test(name) || name.includes('/')) out.push(loadScenarioFile(name));
    else {
      throw new UsageError(
        `unknown scenario "${name}": built-ins are ${BUILT_IN_SCENARIOS.map((s) => s.name).join(', ')} (or pass a .json file)`,
      );
    }
  }
  return out;
}

function listText(): string {
  const width = Math.max(...BUILT_IN_SCENARIOS.map((s) => s.name.length));
  return `${BUILT_IN_SCENARIOS.map((s) => {
    const line = s.description.length > 110 ? `${s.description.slice(0, 109).trimEnd()}…` : s.description;
    return `${s.name.padEnd(width)}  ${String(s.durationSec).padStart(3)} s  ${line}`;
  }).join('\n')}\n`;
}

function progressLine(io: Io, enabled: boolean) {
  if (!enabled) return undefined;
  return (p: Progress) => {
    const pct = Math.floor((100 * p.sec) / p.durationSec);
    const phase = p.phase ? ` · ${p.phase.slice(0, 40)}` : '';
    io.err(
      `\r\x1b[K${p.scenario} ${pct}% (${Math.round(p.sec)}/${p.durationSec} s) · ${p.calls} calls · ${p.transitions} transitions · ${p.restarts} restarts · ${p.notices} notices${phase}`,
    );
  };
}

export const rehearseCommand: Command = {
  name: 'rehearse',
  summary: 'Storm rehearsal: run the real core against a simulated gateway and injected faults',
  help: `Usage: breakerbar rehearse [SCENARIO|FILE ...] [--all] [--list] [--time-scale N]
                            [--format jsonl|sqlite|gatewaylog|all] [--json FILE]
                            [--html FILE] [--replay DIR --speed X]

Starts, on loopback only, a simulated OpenClaw gateway and a simulated agent
workload writing real OpenClaw records into a temporary state directory, and
runs BreakerBar's own core against them (the simulated gateway's restart is the
restart command). Each scenario injects faults in phases — per dependency an
outcome mix (429s with Retry-After, 503s, timeouts, mid-stream aborts), gateway
hangs, refusals and slow starts — and states what BreakerBar must do. Prints
the timeline of transitions, restarts, deferrals and notifications, the
detection latency of every injected fault, and the expectations passed or
failed. Nothing outside the temporary directory is touched; no notification
leaves the machine. Exits 1 when an expectation fails.

A SCENARIO is a built-in name (see --list) or a JSON file with the same shape:
{name, description, durationSec, rate, agents: [{id, deps}], config?,
 phases: [{atSec, durationSec, deps?: {"p/m": {rate_limited: 0.4,
 retryAfterSec: 120, ...}}, gateway?, restartSec?}], expectations: [...]}.

Options:
  --all                Run every built-in scenario
  --list               Name the built-in scenarios, one line each
  --time-scale N       Compress time N-fold: scenario seconds and every policy
                       duration (watchdog, health, breakers, Retry-After,
                       coalescing, the gateway's restart) are divided by N
                       (default 1: real time)
  --format F           What the workload writes: jsonl (default), sqlite,
                       gatewaylog (fallback decisions in the gateway JSON log)
                       or all (agents spread over the three)
  --json FILE          Write the whole report as JSON
  --html FILE          Write the report as one self-contained HTML page with
                       the timeline chart
  --replay DIR         Replay a recorded OpenClaw state directory (JSONL
                       transcripts and gateway logs) instead of a scenario, and
                       report what BreakerBar did
  --speed X            Replay speed: inter-arrival times divided by X (default 1)
  --seed N             Seed of the workload's random choices (default 1)
  -h, --help           Show this help
`,
  options: {
    all: { type: 'boolean' },
    list: { type: 'boolean' },
    'time-scale': { type: 'string' },
    format: { type: 'string' },
    json: { type: 'string' },
    html: { type: 'string' },
    replay: { type: 'string' },
    speed: { type: 'string' },
    seed: { type: 'string' },
  },
  positionals: true,
  async run(args, io) {
    if (args.values.list) {
      io.out(listText());
      return 0;
    }
    const format = (stringOption(args, 'format') ?? 'jsonl') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`--format "${format}": use ${FORMATS.join(', ')}`);
    const timeScale = positiveNumber('--time-scale', stringOption(args, 'time-scale')) ?? 1;
    const speed = positiveNumber('--speed', stringOption(args, 'speed'));
    const seed = positiveNumber('--seed', stringOption(args, 'seed'));
    const replayDir = stringOption(args, 'replay');
    if (speed !== undefined && replayDir === undefined) throw new UsageError('--speed goes with --replay DIR');
    const runs: Array<{ scenario: Scenario; replay?: ReturnType<typeof planReplay>; scale: number }> = [];
    try {
      if (replayDir !== undefined) {
        if (args.positionals.length > 0 || args.values.all) {
          throw new UsageError('--replay runs a recorded directory, not scenarios: drop the scenario names or --all');
        }
        const plan = planReplay(replayDir);
        runs.push({ scenario: replayScenario(plan), replay: plan, scale: speed ?? 1 });
      } else {
        const scenarios = scenariosFrom(args.positionals, args.values.all === true);
        if (scenarios.length === 0) {
          throw new UsageError('name a scenario (see --list), a scenario file, --all, or --replay DIR');
        }
        for (const scenario of scenarios) runs.push({ scenario, scale: timeScale });
      }
    } catch (error) {
      if (error instanceof ScenarioError || error instanceof ReplayError) throw new UsageError(error.message);
      throw error;
    }
    const reports: RehearsalReport[] = [];
    const onProgress = progressLine(io, io.isTTY);
    for (const run of runs) {
      const wallSec = run.scenario.durationSec / run.scale;
      if (!io.isTTY)
        io.err(`rehearsing ${run.scenario.name} (${run.scenario.durationSec} s in ${wallSec.toFixed(1)} s)\n`);
      const report = await runRehearsal(run.scenario, {
        timeScale: run.scale,
        format,
        seed,
        replay: run.replay,
        onProgress,
      });
      if (onProgress) io.err('\r\x1b[K');
      reports.push(report);
      io.out(`${renderText(report)}\n`);
    }
    if (reports.length > 1) {
      const failed = reports.filter((r) => !r.passed);
      io.out(
        `${reports.length - failed.length} of ${reports.length} scenarios passed${failed.length ? `; failed: ${failed.map((r) => r.scenario.name).join(', ')}` : ''}\n`,
      );
    }
    const json = stringOption(args, 'json');
    if (json) {
      const passed = reports.every((r) => r.passed);
      writeFileSync(json, `${JSON.stringify({ breakerbarRehearsal: 1, passed, reports }, null, 2)}\n`);
    }
    const html = stringOption(args, 'html');
    if (html) writeFileSync(html, renderHtml(reports));
    return reports.every((r) => r.passed) ? 0 : 1;
  },
};
