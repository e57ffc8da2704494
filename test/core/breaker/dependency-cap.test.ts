/**
 * Rule: distinct dependencies are capped (`breakers.maxDependencies`): past the ceiling, calls count under
 * `<provider>/other`, `/metrics` stays small however many model names arrive, the warning is logged once, and
 * the status says how many were folded. A restart replays stored calls under the same ceiling.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependencyCap } from '../../../main/core/breaker/dependency-cap.js';
import type { BreakerService } from '../../../main/core/breaker/service.js';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { composeBreakers } from '../../../main/core/compose.js';
import { configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { BreakerbarMetrics } from '../../../main/core/metrics/breakerbar-metrics.js';
import type { Logger } from '../../../main/core/runtime/log.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

let tmp: string;
let store: Store;
const services: BreakerService[] = [];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-cap-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
});

afterEach(() => {
  for (const service of services.splice(0)) service.stop();
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Call `i` to model `m<i>` of one of three providers, failed every seventh time, with tokens. */
function call(i: number): CallEvent {
  const provider = ['zhipu', 'deepseek', 'moonshot'][i % 3] as string;
  return callEvent({
    key: `main/e${i}`,
    ts: T0 + i,
    dep: `${provider}/m${i}`,
    outcome: i % 7 === 0 ? 'server_error' : 'ok',
    usage: tokenUsage(100),
  });
}

function service(maxDependencies: number, log: Logger = silentLogger) {
  const metrics: BreakerbarMetrics = new BreakerbarMetrics({
    snapshots: () => made.snapshots(),
    sources: () => [],
    stalledSessions: () => made.stalledSessions(),
  });
  const made: BreakerService = composeBreakers({
    config: parseWith(configSchema, { breakers: { maxDependencies } }),
    store,
    metrics,
    log,
    clock: () => T0 + 60_000,
    env: {},
  });
  services.push(made);
  made.start();
  return { service: made, metrics };
}

/** Lines of the exposition that are series of `name` (not its HELP and TYPE). */
async function series(metrics: BreakerbarMetrics, name: string): Promise<string[]> {
  const { body } = await metrics.exposition();
  return body.split('\n').filter((line: string) => line.startsWith(`${name}{`));
}

describe('DependencyCap', () => {
  it('keeps the first dependencies, folds the rest per provider, and says so once', () => {
    const told: string[] = [];
    const cap = new DependencyCap(2, (dep, bucket) => told.push(`${dep} → ${bucket}`));
    const of = (dep: string) => cap.dependencyOf({ dep, provider: dep.split('/')[0] as string });
    expect([of('a/1'), of('b/1'), of('a/1'), of('a/2'), of('b/2'), of('a/3'), of('b/1')]).toEqual([
      'a/1',
      'b/1',
      'a/1',
      'a/other',
      'b/other',
      'a/other',
      'b/1',
    ]);
    expect(told).toEqual(['a/2 → a/other']);
    expect(cap.status()).toEqual({ max: 2, tracked: 2, folded: 3 });
  });

  it('folds providers too once their buckets reach the ceiling', () => {
    const cap = new DependencyCap(1);
    const of = (dep: string) => cap.dependencyOf({ dep, provider: dep.split('/')[0] as string });
    expect([of('a/1'), of('b/1'), of('c/1'), of('b/2')]).toEqual(['a/1', 'b/other', 'other/other', 'b/other']);
  });
});

describe('20,000 distinct models', () => {
  it('keeps /metrics small, warns once, and reports how many were folded', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (msg) => warnings.push(msg) };
    const { service: breakers, metrics } = service(200, log);
    const calls = Array.from({ length: 20_000 }, (_, i) => call(i));
    for (let i = 0; i < calls.length; i += 1000) breakers.observe(calls.slice(i, i + 1000));

    const deps = new Set((await series(metrics, 'breakerbar_calls_total')).map((l) => /dep="([^"]*)"/.exec(l)?.[1]));
    // 200 dependencies of their own and one bucket per provider.
    expect(deps.size).toBe(203);
    expect([...deps].filter((dep) => dep?.endsWith('/other')).sort()).toEqual([
      'deepseek/other',
      'moonshot/other',
      'zhipu/other',
    ]);
    expect((await series(metrics, 'breaker_state')).length).toBe(203);
    const { body } = await metrics.exposition();
    expect(body.length).toBeLessThan(1_000_000);
    expect(warnings).toEqual(['too many distinct dependencies: calls to further ones count under <provider>/other']);
    expect(breakers.dependencies()).toEqual({ max: 200, tracked: 200, folded: 19_800 });
    // Every call is still counted, under its own dependency or its provider's bucket.
    const total = (await series(metrics, 'breakerbar_calls_total')).reduce((n, l) => n + Number(l.split(' ')[1]), 0);
    expect(total).toBe(20_000);
  });

  it('replays stored calls under the same ceiling after a restart', async () => {
    store.commit({ events: Array.from({ length: 500 }, (_, i) => call(i)) });
    const { service: breakers } = service(10);
    expect(breakers.snapshots()).toHaveLength(13);
    expect(breakers.dependencies()).toMatchObject({ tracked: 10, folded: 490 });
  });
});
