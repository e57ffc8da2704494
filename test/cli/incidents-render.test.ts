/** `breakerbar incidents` and the incidents line of `status`, rendered in both languages at an injected time. */
import { describe, expect, it } from 'vitest';
import { incidentsLine, renderIncident, renderIncidents } from '../../main/cli/incidents.js';
import { renderStatus } from '../../main/cli/status.js';
import type { IncidentDetail, IncidentSummary, IncidentsStatus } from '../../main/core/incidents/types.js';
import { translator } from '../../main/words/messages/index.js';
import { apiStatus, MIN, NOW } from '../app/fixtures.js';

const en = translator('en');

function incident(over: Partial<IncidentSummary> = {}): IncidentSummary {
  return {
    id: 7,
    openedAt: NOW - 40 * MIN,
    closedAt: NOW - 33 * MIN,
    severity: 'warning',
    causes: ['breaker', 'gateway_hung'],
    deps: ['deepseek/v4', 'zhipu/glm-5.1'],
    agents: ['main'],
    turnsLost: 12,
    failedCalls: 340,
    rateLimitedCalls: 300,
    restarts: 1,
    notifications: 3,
    summary: 'breaker, gateway hung on deepseek/v4, zhipu/glm-5.1: 340 failed calls, 12 turns lost, 1 restart',
    ...over,
  };
}

const WEEK = 7 * 24 * 60 * MIN;

function status(open: IncidentSummary[], mttr: Array<number | null>): IncidentsStatus {
  return {
    open,
    lastClosed: incident(),
    mttrByWeek: mttr.map((mttrMs, i) => ({ weekStart: NOW - i * WEEK, incidents: mttrMs === null ? 0 : 1, mttrMs })),
  };
}

describe('breakerbar incidents', () => {
  it('lists incidents as a table: duration or "open", severity, causes, deps, turns lost, restarts', () => {
    const text = renderIncidents(
      {
        incidents: [
          incident({
            id: 8,
            openedAt: NOW - 5 * MIN,
            closedAt: null,
            severity: 'critical',
            causes: ['gateway_dead'],
            deps: [],
            turnsLost: 0,
            restarts: 2,
          }),
          incident(),
        ],
      },
      NOW,
      'en',
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^id\s+opened\s+duration\s+severity\s+causes\s+dependencies\s+turns lost\s+restarts$/);
    expect(lines[1]).toContain(`8  ${en.dateTime(NOW - 5 * MIN)}`);
    expect(lines[1]).toContain('open (5 min)');
    expect(lines[1]).toContain('critical');
    expect(lines[1]).toContain('gateway dead');
    expect(lines[1]).toMatch(/\s0\s+2$/);
    expect(lines[2]).toContain(en.dateTime(NOW - 40 * MIN));
    expect(lines[2]).toContain('7 min');
    expect(lines[2]).toContain('breaker, gateway hung');
    expect(lines[2]).toContain('deepseek/v4, zhipu/glm-5.1');
    expect(lines[2]).toMatch(/\s12\s+1$/);
    expect(renderIncidents({ incidents: [] }, NOW, 'en')).toBe('No incidents recorded.\n');
  });

  it('shows one incident with its cost and timeline', () => {
    const detail: IncidentDetail = {
      ...incident(),
      timeline: [
        { ts: NOW - 40 * MIN, kind: 'opened', dep: null, text: 'incident opened: breaker zhipu/glm-5.1 open' },
        {
          ts: NOW - 39 * MIN,
          kind: 'call',
          dep: 'zhipu/glm-5.1',
          text: '120 failed calls (118 rate limited)',
          count: 120,
          rateLimited: 118,
        },
        { ts: NOW - 33 * MIN, kind: 'closed', dep: null, text: 'incident closed: no cause holds any more' },
      ],
    };
    const text = renderIncident(detail, NOW, 'en');
    expect(text).toContain('Incident 7 (warning): breaker, gateway hung');
    expect(text).toContain(`Opened ${en.dateTime(NOW - 40 * MIN)}, closed ${en.dateTime(NOW - 33 * MIN)} after 7 min`);
    expect(text).toContain('340 failed calls (300 rate limited), 12 turns lost, 1 restart, 3 notifications');
    expect(text).toContain('Dependencies: deepseek/v4 and zhipu/glm-5.1; agents: main');
    expect(text).toContain(
      `  ${en.dateTime(NOW - 39 * MIN)}  call         zhipu/glm-5.1  120 failed calls (118 rate limited)`,
    );
    const open = renderIncident({ ...detail, closedAt: null }, NOW, 'en');
    expect(open).toContain('open for 40 min');
  });

  it('words the table and the detail in Chinese', () => {
    const zh = translator('zh-CN');
    const text = renderIncidents({ incidents: [incident({ closedAt: null })] }, NOW, 'zh-CN');
    expect(text).toContain('编号');
    expect(text).toContain('进行中');
    expect(text).toContain('熔断器');
    expect(text).toContain('警告');
    const detail = renderIncident({ ...incident(), timeline: [] }, NOW, 'zh-CN');
    expect(detail).toContain('事件 7（警告）');
    expect(detail).toContain(`历时 ${zh.duration(7 * MIN)}`);
    expect(detail).toContain('失败调用 340 次');
  });
});

describe('the incidents line of breakerbar status', () => {
  it('says how many are open and the MTTR of each recent week that had one', () => {
    expect(incidentsLine(status([incident({ closedAt: null })], [7 * MIN, 12 * MIN, null, null]), 'en')).toBe(
      'Incidents  1 open · MTTR 7 min this week, 12 min last week',
    );
    expect(incidentsLine(status([], [null, null, 30 * MIN, null]), 'en')).toBe(
      'Incidents  0 open · MTTR 30 min 2 weeks ago',
    );
    expect(incidentsLine(status([], [null, null, null, null]), 'en')).toBe(
      'Incidents  0 open · none closed in the last 4 weeks',
    );
    expect(incidentsLine(status([], [7 * MIN, null, null, null]), 'zh-CN')).toBe(
      `${'事件'.padEnd(10)} 0 个未结束 · 平均恢复时间：本周 ${translator('zh-CN').duration(7 * MIN)}`,
    );
  });

  it('appears in renderStatus when the daemon keeps incidents, and not otherwise', () => {
    const withIncidents = renderStatus(apiStatus({ incidents: status([], [7 * MIN, null, null, null]) }), NOW);
    expect(withIncidents).toContain('Incidents  0 open · MTTR 7 min this week');
    expect(renderStatus(apiStatus({ incidents: null }), NOW)).not.toContain('Incidents');
  });
});
