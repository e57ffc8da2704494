/**
 * `breakerbar rehearse` as a command: --list, scenario-file validation, the
 * JSON report's shape, the self-contained HTML page, and --replay of a small
 * recorded state directory.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Io, parseCommandArgs, UsageError } from '../../main/cli/command.js';
import { rehearseCommand } from '../../main/cli/rehearse.js';
import { loadScenarioFile, ScenarioError, validateScenario } from '../../main/rehearse/scenario.js';
import { BUILT_IN_SCENARIOS } from '../../main/rehearse/scenarios.js';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';

const root = mkdtempSync(join(tmpdir(), 'bb-rehearse-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => (out += t), err: (t) => (err += t), isTTY: false };
  const code = await rehearseCommand.run(parseCommandArgs(rehearseCommand, argv), io);
  return { code, out, err };
}

const SMALL = {
  name: 'small-503',
  description: 'A short <503> burst & "quotes" to check escaping.',
  durationSec: 40,
  rate: 10,
  agents: [
    { id: 'main', deps: ['anthropic/claude-sonnet-4-5'] },
    { id: 'coder', deps: ['deepseek/deepseek-v4-pro'] },
  ],
  phases: [{ atSec: 10, durationSec: 20, deps: { 'anthropic/claude-sonnet-4-5': { server_error: 1 } } }],
  // A short grace, so that the burst is an incident and the report tells it as one.
  config: { incidents: { graceSec: 5 } },
  expectations: [
    { kind: 'breaker_state', dep: 'anthropic/claude-sonnet-4-5', state: 'open', withinSec: 10 },
    { kind: 'stays_closed', dep: 'deepseek/deepseek-v4-pro' },
    { kind: 'no_restart' },
  ],
};

describe('rehearse --list', () => {
  it('names every built-in scenario, one line each', async () => {
    const { code, out } = await run(['--list']);
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(BUILT_IN_SCENARIOS.length);
    for (const s of BUILT_IN_SCENARIOS) expect(out).toContain(s.name);
    expect(out).toContain('healthy-control');
    expect(out).toContain('503-injection');
  });
});

describe('scenario validation', () => {
  const bad = (patch: Record<string, unknown>) => ({ ...SMALL, ...patch });
  it.each([
    [{ durationSec: -1 }, /durationSec: must be a number/],
    [{ agents: [] }, /agents: must be a list of at least 1/],
    [
      { phases: [{ atSec: 1, durationSec: 2, deps: { 'nope/x': { timeout: 0.5 } } }] },
      /phases\[0\]\.deps\.nope\/x: unknown dependency/,
    ],
    [
      { phases: [{ atSec: 1, durationSec: 2, deps: { 'anthropic/claude-sonnet-4-5': { teapot: 0.5 } } }] },
      /phases\[0\]\.deps\.anthropic\/claude-sonnet-4-5\.teapot: unknown key/,
    ],
    [
      {
        phases: [
          { atSec: 1, durationSec: 2, deps: { 'anthropic/claude-sonnet-4-5': { timeout: 0.7, server_error: 0.7 } } },
        ],
      },
      /add up to 1\.4/,
    ],
    [
      { phases: [{ atSec: 1, durationSec: 2, gateway: 'melting' }] },
      /phases\[0\]\.gateway: must be one of up, starting/,
    ],
    [{ expectations: [{ kind: 'restarts' }] }, /expectations\[0\]: restarts needs count, min or max/],
    [{ expectations: [{ kind: 'vibes' }] }, /expectations\[0\]\.kind: must be one of/],
    [{ config: { watchdg: {} } }, /config\.watchdg: unknown key/],
    [{ colour: 'red' }, /^scenario: colour: unknown key/],
  ])('%j is refused naming the key', (patch, message) => {
    expect(() => validateScenario(bad(patch))).toThrow(ScenarioError);
    expect(() => validateScenario(bad(patch))).toThrow(message);
  });

  it('a bad file is a usage error naming the file and key; an unknown name lists the built-ins', async () => {
    const file = join(root, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...SMALL, rate: 'fast' }));
    await expect(run([file])).rejects.toThrow(UsageError);
    await expect(run([file])).rejects.toThrow(/bad\.json: rate: must be a number/);
    writeFileSync(join(root, 'broken.json'), '{ "name": ');
    await expect(run([join(root, 'broken.json')])).rejects.toThrow(/not valid JSON/);
    await expect(run(['no-such-scenario'])).rejects.toThrow(
      /unknown scenario "no-such-scenario": built-ins are original-429-storm/,
    );
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(['healthy-control', '--format', 'xml'])).rejects.toThrow(/--format "xml"/);
    await expect(run(['healthy-control', '--time-scale', '0'])).rejects.toThrow(/--time-scale "0"/);
    await expect(run(['healthy-control', '--speed', '2'])).rejects.toThrow(/--speed goes with --replay/);
  });

  it('accepts JSON5 comments in a file', () => {
    const file = join(root, 'commented.json');
    writeFileSync(file, `// a scenario\n${JSON.stringify(SMALL)}`);
    expect(loadScenarioFile(file).name).toBe('small-503');
  });
});

describe('reports', () => {
  it('writes the JSON report and a self-contained HTML page; exit 0 when expectations pass', async () => {
    const file = join(root, 'small.json');
    writeFileSync(file, JSON.stringify(SMALL));
    const json = join(root, 'report.json');
    const html = join(root, 'report.html');
    const { code, out } = await run([file, '--time-scale', '10', '--format', 'sqlite', '--json', json, '--html', html]);
    expect(out).toContain('Rehearsal small-503: PASSED');
    expect(out).toMatch(/✓\s+anthropic\/claude-sonnet-4-5 breaker goes open within 10 s/);
    expect(code).toBe(0);
    const doc = JSON.parse(readFileSync(json, 'utf8'));
    expect(doc).toMatchObject({ breakerbarRehearsal: 1, passed: true });
    const [report] = doc.reports;
    expect(report).toMatchObject({
      scenario: { name: 'small-503', durationSec: 40, rate: 10 },
      timeScale: 10,
      format: 'sqlite',
      passed: true,
      policy: { maxRestartsPerHour: 4, restartSpacingSec: 60 },
    });
    expect(report.calls.total).toBeGreaterThan(300);
    expect(report.timeline.some((e: { type: string; to?: string }) => e.type === 'transition' && e.to === 'open')).toBe(
      true,
    );
    expect(report.latencies[0]).toMatchObject({ phase: 0, target: 'anthropic/claude-sonnet-4-5' });
    expect(report.latencies[0].transitionSec).toBeLessThan(10);
    expect(report.expectations).toHaveLength(3);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<svg');
    // Read as an incident: the burst's own section, with what happened while it was open.
    const incident = /<article class="incident warning"><h4>([^<]*)<\/h4>[\s\S]*?<\/article>/.exec(page);
    expect(incident?.[1]).toContain('Incident #1 · breaker on anthropic/claude-sonnet-4-5');
    expect(incident?.[0]).toContain('closed → open');
    expect(page).toContain('Outside the incidents');
    expect(page).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(page).not.toMatch(/<script|<link|@import|url\(/i);
    expect(page).toContain('A short &#60;503&#62; burst &#38; &#34;quotes&#34;');
    expect(page).not.toContain('<503>');
  }, 30_000);

  it('exits 1 when an expectation fails', async () => {
    const file = join(root, 'failing.json');
    writeFileSync(
      file,
      JSON.stringify({ ...SMALL, name: 'expects-too-much', expectations: [{ kind: 'restarts', count: 1 }] }),
    );
    const { code, out } = await run([file, '--time-scale', '20']);
    expect(code).toBe(1);
    expect(out).toContain('FAILED');
    expect(out).toMatch(/✗\s+exactly 1 restart\s+0 restarts/);
  }, 30_000);
});

describe('--replay', () => {
  it('replays a recorded state directory with its inter-arrival times scaled, and reports what BreakerBar did', async () => {
    const dir = join(root, 'recorded');
    const sessions = join(dir, 'agents', 'main', 'sessions');
    mkdirSync(sessions, { recursive: true });
    // An hour ago: 60 s of calls, 2 per second, with a 503 outage from 20 s to 40 s.
    const start = Date.now() - 3_600_000;
    const lines = [sessionHeader('replayed-session', start)];
    for (let i = 0; i < 120; i++) {
      const ts = start + i * 500;
      const failing = i >= 40 && i < 80;
      lines.push(
        assistantMessage({
          id: `e${i}`,
          parentId: i === 0 ? null : `e${i - 1}`,
          ts,
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          outcome: failing ? 'server_error' : 'ok',
          text: failing ? undefined : 'ok',
          totalTokens: failing ? 0 : 100,
        }),
      );
    }
    writeFileSync(join(sessions, 'replayed-session.jsonl'), `${lines.join('\n')}\n`);
    const json = join(root, 'replay.json');
    const { code, out } = await run(['--replay', dir, '--speed', '20', '--json', json]);
    expect(code).toBe(0);
    expect(out).toContain('Rehearsal replay-recorded: PASSED');
    const [report] = JSON.parse(readFileSync(json, 'utf8')).reports;
    expect(report.timeScale).toBe(20);
    expect(report.calls.total).toBe(120);
    const transitions = report.timeline.filter((e: { type: string }) => e.type === 'transition');
    expect(transitions[0]).toMatchObject({ dep: 'anthropic/claude-sonnet-4-5', from: 'closed', to: 'open' });
    // The outage began 20 s into the recording: the breaker opened after it, in replayed time.
    expect(transitions[0].t).toBeGreaterThanOrEqual(20);
    expect(transitions[0].t).toBeLessThan(35);
    await expect(run(['--replay', join(root, 'empty-nothing')])).rejects.toThrow(/not a directory/);
  }, 30_000);
});
