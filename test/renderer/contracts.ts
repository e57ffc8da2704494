/**
 * Answers for the API routes newer than some cores the dashboard talks to
 * (`/api/spend`, `/api/incidents`): a page route answers each request with the
 * data given here, shaped as the contract types say, or with the 404 an older
 * core gives when no data is given. The views are tested against the contract
 * and against a core that lacks it, whatever the server under test serves.
 */
import type { Page, Route } from 'playwright-core';
import type { IncidentDetail, IncidentList, IncidentSummary } from '../../main/core/incidents/types.js';
import type { SpendPeriod, SpendReport, SpendRow } from '../../main/core/spend/types.js';

export interface Contracts {
  spend?: SpendReport;
  incidents?: IncidentDetail[];
}

async function answer(route: Route, body: unknown | undefined): Promise<void> {
  if (body === undefined) {
    const path = new URL(route.request().url()).pathname;
    await route.fulfill({
      status: 404,
      contentType: 'application/json',
      body: JSON.stringify({ error: `no route ${path}` }),
    });
    return;
  }
  await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
}

export function summaryOf(detail: IncidentDetail): IncidentSummary {
  const { timeline: _timeline, ...summary } = detail;
  return summary;
}

/** Routes `/api/spend` and `/api/incidents[/<id>]` on `page` to `contracts` (404 for what it leaves out). */
export async function serveContracts(page: Page, contracts: Contracts): Promise<void> {
  await page.route(
    (url) => url.pathname === '/api/spend',
    (route) => answer(route, contracts.spend),
  );
  await page.route(
    (url) => url.pathname === '/api/incidents',
    (route) =>
      answer(
        route,
        contracts.incidents === undefined
          ? undefined
          : ({ incidents: contracts.incidents.map(summaryOf) } satisfies IncidentList),
      ),
  );
  await page.route(
    (url) => url.pathname.startsWith('/api/incidents/'),
    (route) => {
      const id = Number(new URL(route.request().url()).pathname.split('/').pop());
      return answer(
        route,
        contracts.incidents?.find((i) => i.id === id),
      );
    },
  );
}

const row = (key: string, calls: number, failures: number, tokens: number, cost: number): SpendRow => ({
  key,
  calls,
  failures,
  tokens,
  cost,
});

function period(from: number, to: number, models: SpendRow[]): SpendPeriod {
  const byProvider = new Map<string, SpendRow>();
  for (const m of models) {
    const provider = m.key.split('/')[0] ?? m.key;
    const p = byProvider.get(provider) ?? row(provider, 0, 0, 0, 0);
    byProvider.set(
      provider,
      row(provider, p.calls + m.calls, p.failures + m.failures, p.tokens + m.tokens, p.cost + m.cost),
    );
  }
  const total = models.reduce(
    (sum, m) => row('total', sum.calls + m.calls, sum.failures + m.failures, sum.tokens + m.tokens, sum.cost + m.cost),
    row('total', 0, 0, 0, 0),
  );
  return {
    from,
    to,
    total,
    byProvider: [...byProvider.values()],
    byModel: models,
    byAgent: [{ ...total, key: 'main' }],
  };
}

/** A spend report for a storm on zhipu and anthropic, deepseek answering: today, 7 and 30 days, budgets, quota. */
export function stormSpend(now: number): SpendReport {
  const day = 86_400_000;
  const today = [
    row('zhipu/glm-5.1', 412, 118, 1_840_000, 3.12),
    row('anthropic/claude-sonnet-4-5', 96, 21, 610_000, 4.87),
    row('deepseek/deepseek-v4-pro', 233, 2, 1_020_000, 0.91),
  ];
  const scale = (rows: SpendRow[], k: number) =>
    rows.map((r) => row(r.key, r.calls * k, Math.round(r.failures * k * 0.3), r.tokens * k, r.cost * k));
  return {
    generatedAt: now,
    today: period(now - 10 * 3_600_000, now, today),
    week: period(now - 7 * day, now, scale(today, 6)),
    month: period(now - 30 * day, now, scale(today, 24)),
    burn: [
      { provider: 'anthropic', tokensPerHour: 82_000, usdPerHour: 0.61 },
      { provider: 'deepseek', tokensPerHour: 120_000, usdPerHour: 0.11 },
      { provider: 'zhipu', tokensPerHour: 240_000, usdPerHour: 0.4 },
    ],
    budgets: [
      { provider: 'anthropic', period: 'day', unit: 'usd', limit: 10, used: 4.87, projected: 11.7, crossed: 0.5 },
      {
        provider: 'zhipu',
        period: 'month',
        unit: 'tokens',
        limit: 60_000_000,
        used: 44_160_000,
        projected: 52_000_000,
        crossed: 0.5,
      },
    ],
    quota: [
      {
        provider: 'zhipu',
        window: '5h',
        usedShare: 0.82,
        resetsAt: now + 95 * 60_000,
        exhausted: false,
        readAt: now - 60_000,
      },
    ],
  };
}

/** An open storm incident on zhipu and anthropic, and a closed one from yesterday. */
export function stormIncidents(now: number): IncidentDetail[] {
  const minute = 60_000;
  return [
    {
      id: 12,
      openedAt: now - 25 * minute,
      closedAt: null,
      severity: 'critical',
      causes: ['breaker'],
      deps: ['anthropic/claude-sonnet-4-5', 'zhipu/glm-5.1'],
      agents: ['main'],
      turnsLost: 7,
      failedCalls: 139,
      rateLimitedCalls: 118,
      restarts: 1,
      notifications: 3,
      summary: '429 storm on zhipu/glm-5.1 and anthropic/claude-sonnet-4-5',
      timeline: [
        { ts: now - 25 * minute, kind: 'opened', dep: 'zhipu/glm-5.1', text: 'breaker throttled: 429s' },
        { ts: now - 24 * minute, kind: 'notification', dep: null, text: 'notified desktop, webhook' },
        { ts: now - 20 * minute, kind: 'restart', dep: null, text: 'storm restart: recovered in 38 s' },
        {
          ts: now - 2 * minute,
          kind: 'cause',
          dep: 'anthropic/claude-sonnet-4-5',
          text: 'breaker opened: 5 consecutive failures',
        },
      ],
    },
    {
      id: 11,
      openedAt: now - 30 * 3_600_000,
      closedAt: now - 30 * 3_600_000 + 12 * minute,
      severity: 'warning',
      causes: ['gateway_dead'],
      deps: [],
      agents: [],
      turnsLost: 2,
      failedCalls: 4,
      rateLimitedCalls: 0,
      restarts: 1,
      notifications: 2,
      summary: 'gateway down for 12 min',
      timeline: [
        { ts: now - 30 * 3_600_000, kind: 'opened', dep: null, text: 'gateway down: connection refused' },
        { ts: now - 30 * 3_600_000 + 12 * minute, kind: 'closed', dep: null, text: 'gateway answers again' },
      ],
    },
  ];
}
