/**
 * The rehearsal report reads as an incident timeline: each incident with when it
 * opened, what happened while it was open and when it was resolved; the rest of
 * the scenario after it; an incident lane on the chart.
 */
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../main/rehearse/report-html.js';
import { incidentSpans } from '../../main/rehearse/report-incidents.js';
import { renderText } from '../../main/rehearse/report-text.js';
import type { RehearsalReport, TimelineEvent } from '../../main/rehearse/types.js';

const DEP = 'zhipu/glm-5.1';

function report(timeline: TimelineEvent[]): RehearsalReport {
  return {
    scenario: { name: 'storm', description: 'a storm', durationSec: 120, rate: 2 },
    timeScale: 10,
    format: 'jsonl',
    slackMs: 200,
    startedAt: new Date(0).toISOString(),
    wallMs: 12_000,
    stateDir: null,
    calls: { total: 10, failed: 4, byDep: { [DEP]: { calls: 10, failed: 4 } } },
    policy: {
      maxRestartsPerHour: 4,
      restartSpacingSec: 60,
      startupGraceSec: 300,
      maxDeferralSec: 600,
      deadAfterSec: 20,
      hungAfterSec: 300,
      healthIntervalSec: 15,
      breakerCooldownMs: 30_000,
    },
    timeline,
    restarts: [],
    commands: [],
    latencies: [],
    expectations: [],
    passed: true,
  };
}

const incident = (t: number, change: 'opened' | 'updated' | 'closed', severity = 'warning'): TimelineEvent => ({
  t,
  type: 'incident',
  id: 1,
  change,
  severity,
  causes: ['breaker'],
  deps: [DEP],
  summary: `429 storm on ${DEP}`,
  // Dated from its first cause (the trip at 10 s), announced after the grace.
  openedAtSec: 10,
  closedAtSec: change === 'closed' ? 90 : null,
});

const timeline: TimelineEvent[] = [
  { t: 2, type: 'transition', dep: 'deepseek/deepseek-v4-pro', from: 'closed', to: 'open', reason: 'before' },
  { t: 10, type: 'transition', dep: DEP, from: 'closed', to: 'open', reason: '5 rate_limited in a row' },
  incident(20, 'opened'),
  { t: 30, type: 'restart', id: 4, trigger: 'storm', evidence: 'storm', reason: '3 checks saw 429s' },
  incident(40, 'updated', 'critical'),
  { t: 60, type: 'transition', dep: DEP, from: 'half_open', to: 'closed', reason: 'trials passed' },
  incident(90, 'closed', 'critical'),
  { t: 100, type: 'notice', notice: 'breaker_closed', dep: DEP, title: 'after', severity: 'info', count: 1 },
];

describe('the rehearsal report as incidents', () => {
  it('folds incident events into spans with their last summary', () => {
    expect(incidentSpans(timeline)).toEqual([
      {
        id: 1,
        openedAt: 10,
        closedAt: 90,
        severity: 'critical',
        causes: ['breaker'],
        deps: [DEP],
        summary: `429 storm on ${DEP}`,
      },
    ]);
    expect(incidentSpans(timeline.slice(0, 5))[0]?.closedAt).toBeNull();
  });

  it('shows each incident with its own timeline, then what happened outside it', () => {
    const html = renderHtml([report(timeline)]);
    const article = /<article class="incident critical">([\s\S]*?)<\/article>/.exec(html)?.[1] ?? '';
    expect(article).toContain(`Incident #1 · 429 storm on ${DEP} (critical)`);
    expect(article).toContain('opened at 10.0 s · resolved at 90.0 s after 80 s · causes: breaker');
    expect(article).toContain('closed → open (5 rate_limited in a row)');
    expect(article).toContain('#4 storm (evidence: storm): 3 checks saw 429s');
    expect(article).toContain('half_open → closed');
    expect(article).not.toContain('before');
    const outside = html.slice(html.indexOf('Outside the incidents'));
    expect(outside).toContain('closed → open (before)');
    expect(outside).toContain('breaker_closed');
    expect(outside).not.toContain('3 checks saw 429s');
    expect(html).toMatch(/<rect [^>]*class="span critical"/);
    expect(html).toContain('Noto Sans CJK SC');
  });

  it('says so when no incident opened, and lists incidents in the text report', () => {
    expect(renderHtml([report(timeline.slice(0, 2))])).toContain('No incident opened.');
    expect(renderText(report(timeline))).toContain(
      `Incidents\nIncident #1 · 429 storm on ${DEP} (critical): opened at 10.0 s · resolved at 90.0 s after 80 s`,
    );
  });
});
