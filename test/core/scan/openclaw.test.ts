/**
 * `scan` over what the real OpenClaw wrote in the real-gateway suite
 * (`test/fixtures/openclaw-<version>/`: the gateway log's lines BreakerBar reads,
 * every assistant record, and the mock provider's request log). The same
 * invariant as the suite, without a gateway: calls per dependency and outcome
 * equal the requests the provider received per status class, and turns equal
 * OpenClaw's records plus the turns it refused itself.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scan } from '../../../main/core/scan/scan.js';
import { ANSWER_CLASS, type Answer } from '../../e2e/openclaw/harness/mock-provider.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A state dir holding the captured records as one transcript, and the captured log under OpenClaw's name. */
function installation(version: string): { stateDir: string; logDir: string; records: string[] } {
  const root = mkdtempSync(join(tmpdir(), `bb-scan-${version}-`));
  roots.push(root);
  const fixture = join(FIXTURES, `openclaw-${version}`);
  const records = readFileSync(join(fixture, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const sessions = join(root, 'state', 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  const header = JSON.stringify({ type: 'session', version: 3, id: 'captured', timestamp: '2026-12-01T00:00:00.000Z' });
  writeFileSync(join(sessions, 'captured.jsonl'), `${[header, ...records].join('\n')}\n`);
  const logDir = join(root, 'logs');
  mkdirSync(logDir);
  copyFileSync(join(fixture, 'gateway.log'), join(logDir, 'openclaw-2026-12-01.log'));
  return { stateDir: join(root, 'state'), logDir, records };
}

function requestsByClass(version: string): Record<string, Record<string, number>> {
  const requests = JSON.parse(readFileSync(join(FIXTURES, `openclaw-${version}`, 'requests.json'), 'utf8')) as Array<{
    provider: string;
    model: string;
    answer: Answer;
  }>;
  const counts: Record<string, Record<string, number>> = {};
  for (const request of requests) {
    const dep = `${request.provider}/${request.model}`;
    const perDep = counts[dep] ?? {};
    perDep[ANSWER_CLASS[request.answer]] = (perDep[ANSWER_CLASS[request.answer]] ?? 0) + 1;
    counts[dep] = perDep;
  }
  return counts;
}

function nonZero(byDependency: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [dep, counts] of Object.entries(byDependency)) {
    const kept = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    if (Object.keys(kept).length > 0) out[dep] = kept;
  }
  return out;
}

describe.each(['2026.9.6', '2026.7.1'])('scan over what openclaw@%s wrote', (version) => {
  it('counts each upstream request once, by dependency and status class', () => {
    const { stateDir, logDir } = installation(version);
    const result = scan([stateDir], { gatewayLogDirs: [logDir] });
    expect(result.errors).toEqual([]);
    expect(nonZero(result.byDependency)).toEqual(requestsByClass(version));
  });

  it("counts every record as a turn, and 2026.9's refused turn", () => {
    const { stateDir, logDir, records } = installation(version);
    const result = scan([stateDir], { gatewayLogDirs: [logDir] });
    const refused = version === '2026.9.6' ? 1 : 0;
    expect(result.turns.turns).toBe(records.length + refused);
    expect(result.turns.outcomes.refused).toBe(refused);
  });
});
