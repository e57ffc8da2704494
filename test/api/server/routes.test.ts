/**
 * The route table is the API: every entry is routed by the real server (on
 * loopback, over a recording backend), answers only its own methods (405 with
 * `Allow` from the table otherwise), and every JSON entry is reachable through
 * the typed client built from the same table.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ArgsOf, createClient, type Transport } from '../../../main/api/client.js';
import {
  type CallableName,
  isCallable,
  methodsOf,
  pathOf,
  ROUTE_NAMES,
  ROUTES,
  type RouteSpec,
} from '../../../main/api/routes.js';
import type { IncidentDetail } from '../../../main/core/incidents/types.js';
import { type FakeCore, startFakeCore } from '../../app/fake-core.js';

/** The JSON routes that take parameters: each needs a sample call below. */
type WithParams = { [N in CallableName]: ArgsOf<N> extends [] ? never : N }[CallableName];

/**
 * Parameters for one call of every JSON route that takes some: a route with parameters added to the table without
 * one here fails to compile; a route without parameters is called with none.
 */
const SAMPLES: { [N in WithParams]: ArgsOf<N> } = {
  history: [{ from: 1_000, to: 61_000, stepSec: 60, dep: 'a/b' }],
  incidents: [{ limit: 5 }],
  incident: [{ id: 7 }],
  control: [{ dep: 'zhipu/glm-5.1', action: 'force_open', reason: 'route table test' }],
  restart: [{ force: false, reason: 'route table test' }],
  pause: [{ durationSec: 60 }],
  startMaintenance: [{ durationSec: 600, reason: 'route table test' }],
  saveConfig: [{ config: { log: { level: 'debug' } } }],
  // A code never issued: the reachability test trades the one signInCode just issued instead.
  signIn: [{ code: 'A'.repeat(32) }],
};

/** The sample parameters of a route (none for a route that takes none). */
const sample = (route: CallableName): unknown => (route in SAMPLES ? SAMPLES[route as WithParams][0] : undefined);

/** A path that matches the route's pattern, for the routes the client does not call. */
function samplePath(spec: RouteSpec<never, unknown, unknown>): string {
  return pathOf(spec.path, { id: '7', dep: 'a/b' });
}

let core: FakeCore;

beforeEach(async () => {
  core = await startFakeCore();
  core.backend.incidentDetails.push({ id: 7, openedAt: 1_000, timeline: [] } as unknown as IncidentDetail);
});

afterEach(async () => {
  await core.close();
});

function transport(token: string | null): Transport {
  return async ({ method, path, body }) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${core.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const value = (await response.json()) as { error?: string };
    if (!response.ok) throw new Error(`${response.status} ${value.error}`);
    return value;
  };
}

describe('the route table', () => {
  it('names each method and path once', () => {
    const seen = new Set<string>();
    for (const name of ROUTE_NAMES) {
      const spec = ROUTES[name] as unknown as RouteSpec<never, unknown, unknown>;
      for (const method of methodsOf(spec)) {
        const key = `${method} ${spec.path}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });

  it('every JSON route is reachable through the typed client, and reaches the backend', async () => {
    const client = createClient(transport(core.token));
    const call = client.call as (route: CallableName, params?: unknown) => Promise<unknown>;
    const callable = ROUTE_NAMES.filter(isCallable);
    let issued: string | null = null;
    for (const route of callable) {
      const params = route === 'signIn' && issued !== null ? { code: issued } : sample(route);
      const answer = await call(route, params);
      expect(answer, route).toBeTypeOf('object');
      if (route === 'signInCode') issued = (answer as { code: string }).code;
    }
    expect(issued, 'signInCode comes before signIn in the table').not.toBeNull();
    expect(core.backend.historyQueries).toEqual([{ dep: 'a/b', from: 1_000, to: 61_000, stepMs: 60_000 }]);
    expect(core.backend.incidentQueries).toEqual([{ limit: 5, since: null }]);
    expect(core.backend.controls).toEqual([{ dep: 'zhipu/glm-5.1', action: 'force_open', reason: 'route table test' }]);
    expect(core.backend.watchdogRequests.map((request) => request.action)).toEqual(['restart', 'pause', 'resume']);
    expect(core.backend.maintenanceRequests).toEqual([
      undefined,
      { durationSec: 600, reason: 'route table test' },
      null,
    ]);
    expect(core.backend.savedConfigs).toEqual([{ log: { level: 'debug' } }]);
  });

  it('the routes that need the token refuse a call without it', async () => {
    const call = createClient(transport(null)).call as (route: CallableName, params?: unknown) => Promise<unknown>;
    for (const route of ROUTE_NAMES.filter(isCallable)) {
      const attempt = call(route, sample(route));
      // signIn needs no token, but its code is the credential, and the sample's was never issued.
      if (ROUTES[route].token || route === 'signIn') await expect(attempt, route).rejects.toThrow(/^401 /);
      else await expect(attempt, route).resolves.toBeTypeOf('object');
    }
  });

  it('routes the text and stream entries too', async () => {
    for (const name of ROUTE_NAMES.filter((route) => !isCallable(route))) {
      const spec = ROUTES[name] as unknown as RouteSpec<never, unknown, unknown>;
      const abort = new AbortController();
      const response = await fetch(`${core.url}${samplePath(spec)}`, { method: spec.method, signal: abort.signal });
      expect(response.status, name).toBe(200);
      const type = response.headers.get('content-type') ?? '';
      expect(type, name).toMatch(spec.answer === 'stream' ? /^text\/event-stream/ : /^text\/plain/);
      abort.abort();
      await response.body?.cancel().catch(() => {});
    }
  });

  it('answers a method the table does not list with 405 and the methods it does', async () => {
    for (const name of ROUTE_NAMES) {
      const spec = ROUTES[name] as unknown as RouteSpec<never, unknown, unknown>;
      const path = samplePath(spec);
      const allowed = ROUTE_NAMES.map((other) => ROUTES[other] as unknown as RouteSpec<never, unknown, unknown>)
        .filter((other) => other.path === spec.path)
        .flatMap((other) => methodsOf(other));
      const response = await fetch(`${core.url}${path}`, { method: 'PUT', body: '{}' });
      expect(response.status, name).toBe(405);
      expect(response.headers.get('allow')?.split(', ').sort(), name).toEqual([...new Set(allowed)].sort());
      await response.body?.cancel();
    }
  });
});
