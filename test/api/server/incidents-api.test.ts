/**
 * Incidents through the real local API: a monitor reads a 429 storm from a transcript, its breaker trips,
 * the incident rules open an incident, and `/api/incidents`, `/api/incidents/<id>`, `/api/status` and
 * `/metrics` show it; bad parameters are 400s naming the parameter, an unknown id a 404.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIncidentQuery } from '../../../main/api/queries.js';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { ApiError, ApiStatus } from '../../../main/api/types.js';
import { loadConfig } from '../../../main/core/config/index.js';
import type { IncidentDetail, IncidentList } from '../../../main/core/incidents/types.js';
import { METRIC_NAMES } from '../../../main/core/metrics/names.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { parsePrometheusText } from '../../../main/core/sources/prometheus-text.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { until } from '../../helpers/transcripts.js';

let root: string;
let monitor: Monitor | null = null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-incidents-api-'));
});

afterEach(async () => {
  await monitor?.stop();
  monitor = null;
  rmSync(root, { recursive: true, force: true });
});

async function startMonitor(): Promise<Monitor> {
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  // No grace: the storm below opens an incident at the first evaluation after its breaker trips.
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ server: { port: 0 }, gatewayMetrics: { enabled: false }, incidents: { graceSec: 0 } }),
  );
  const loaded = loadConfig(undefined, {
    env: { BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: join(root, 'openclaw') },
    home: root,
    platform: 'linux',
  });
  monitor = new Monitor(loaded, { log: silentLogger, gateway: false });
  await monitor.start();
  return monitor;
}

/** Writes the storm; returns its calls' times. */
function writeStorm(): number[] {
  const dir = join(root, 'openclaw', 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const lines = [sessionHeader('s1', now - 60_000)];
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    times.push(now - 30_000 + i * 1000);
    lines.push(
      assistantMessage({
        id: `z${i}`,
        parentId: null,
        ts: now - 30_000 + i * 1000,
        provider: 'zhipu',
        model: 'glm-5.1',
        outcome: 'rate_limited',
      }),
    );
  }
  appendFileSync(join(dir, 's1.jsonl'), `${lines.join('\n')}\n`);
  return times;
}

const get = (path: string) => fetch(`${monitor?.apiUrl}${path}`);
const json = async <T>(path: string) => (await (await get(path)).json()) as T;

describe('GET /api/incidents', () => {
  it('lists the incident a storm opened, answers its timeline, and shows it in the status and /metrics', async () => {
    const times = writeStorm();
    const m = await startMonitor();
    await until(async () => {
      m.incidents?.evaluate();
      return (await json<IncidentList>('/api/incidents')).incidents.length > 0;
    });
    const { incidents } = await json<IncidentList>('/api/incidents');
    expect(incidents).toHaveLength(1);
    const [incident] = incidents;
    expect(incident).toMatchObject({ closedAt: null, severity: 'warning', causes: ['breaker'] });
    expect(incident!.deps).toContain('zhipu/glm-5.1');
    // It dates from the breaker's trip (a call of the storm), and counts the failures from there on.
    expect(times).toContain(incident!.openedAt);
    const after = times.filter((t) => t >= incident!.openedAt).length;
    expect(after).toBeGreaterThan(0);
    expect(incident!.failedCalls).toBe(after);
    expect(incident!.rateLimitedCalls).toBe(after);
    expect(incident!.agents).toEqual(['main']);

    const detail = await json<IncidentDetail>(`/api/incidents/${incident!.id}`);
    expect(detail.id).toBe(incident!.id);
    expect(detail.timeline[0]).toMatchObject({ kind: 'opened' });
    expect(detail.timeline.filter((e) => e.kind === 'call').reduce((n, e) => n + (e.count ?? 0), 0)).toBe(after);
    expect(detail.timeline.some((e) => e.kind === 'transition' && e.dep === 'zhipu/glm-5.1')).toBe(true);

    const status = await json<ApiStatus>('/api/status');
    expect(status.incidents?.open.map((i) => i.id)).toEqual([incident!.id]);
    expect(status.incidents?.mttrByWeek).toHaveLength(4);

    const { samples } = parsePrometheusText(await (await get('/metrics')).text());
    const open = samples.find((s) => s.name === METRIC_NAMES.incidentsOpen);
    expect(open?.value).toBe(1);
    expect(samples.some((s) => s.name === `${METRIC_NAMES.incidentDuration}_count`)).toBe(true);

    expect((await json<IncidentList>('/api/incidents?limit=1&since=0')).incidents).toHaveLength(1);
    expect((await json<IncidentList>(`/api/incidents?since=${Date.now() + 3_600_000}`)).incidents).toEqual([]);
  });

  it('answers 404 for an unknown incident and 400 naming a bad parameter', async () => {
    await startMonitor();
    const unknown = await get('/api/incidents/4242');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ApiError).error).toBe('no incident 4242');
    for (const [path, param] of [
      ['/api/incidents/abc', 'id'],
      ['/api/incidents/0', 'id'],
      ['/api/incidents?limit=0', 'limit'],
      ['/api/incidents?limit=abc', 'limit'],
      ['/api/incidents?since=yesterday', 'since'],
      ['/api/incidents?from=1', 'from'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as ApiError).param, path).toBe(param);
    }
    expect((await get('/api/incidents')).status).toBe(200);
  });
});

describe('parseIncidentQuery', () => {
  it('defaults to 50 of any time, accepts epoch ms and ISO 8601, refuses repeats', () => {
    expect(parseIncidentQuery('')).toEqual({ ok: true, query: { limit: 50, since: null } });
    expect(parseIncidentQuery('limit=1000&since=1700000000000')).toEqual({
      ok: true,
      query: { limit: 1000, since: 1_700_000_000_000 },
    });
    expect(parseIncidentQuery('since=2026-01-15T12:00:00Z')).toEqual({
      ok: true,
      query: { limit: 50, since: Date.UTC(2026, 0, 15, 12) },
    });
    expect(parseIncidentQuery('limit=1001')).toMatchObject({ ok: false, param: 'limit' });
    expect(parseIncidentQuery('limit=1&limit=2')).toMatchObject({ ok: false, param: 'limit' });
  });
});
