import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  incidentOpenedNotice,
  incidentResolvedNotice,
  incidentWhat,
  wireIncidentNotices,
} from '../../../main/core/incidents/incident-notices.js';
import type { IncidentSummary } from '../../../main/core/incidents/types.js';
import type { NoticeInput } from '../../../main/core/notify/notice.js';
import { translator } from '../../../main/words/messages/index.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 11, 1, 10);
const en = translator('en');
const zh = translator('zh-CN');

function incident(extra: Partial<IncidentSummary> = {}): IncidentSummary {
  return {
    id: 7,
    openedAt: T0,
    closedAt: null,
    severity: 'warning',
    causes: ['breaker'],
    deps: ['zhipu/glm-5.1'],
    agents: ['main'],
    turnsLost: 3,
    failedCalls: 42,
    rateLimitedCalls: 40,
    restarts: 1,
    notifications: 0,
    summary: '429 storm on zhipu/glm-5.1',
    ...extra,
  };
}

describe('incident notices', () => {
  it('names a rate-limited breaker incident a 429 storm, and each other cause by its phrase', () => {
    expect(incidentWhat(incident(), en)).toBe('429 storm on zhipu/glm-5.1');
    expect(incidentWhat(incident({ rateLimitedCalls: 0 }), en)).toBe('zhipu/glm-5.1 failing');
    expect(incidentWhat(incident({ causes: ['breaker', 'gateway_dead'] }), en)).toBe(
      '429 storm on zhipu/glm-5.1 and gateway down',
    );
    expect(incidentWhat(incident(), zh)).toBe('zhipu/glm-5.1 遭遇 429 风暴');
  });

  it('opened carries the incident severity; resolved is info, routed at what it closes', () => {
    const opened = incidentOpenedNotice(incident({ severity: 'critical' }), en, T0);
    expect(opened).toMatchObject({ kind: 'incident_opened', severity: 'critical', dep: 'zhipu/glm-5.1', ts: T0 });
    expect(opened.title).toBe('Incident: 429 storm on zhipu/glm-5.1');
    const closed = incident({ closedAt: T0 + 7 * MIN, severity: 'critical' });
    const resolved = incidentResolvedNotice(closed, en, T0 + 7 * MIN);
    expect(resolved).toMatchObject({ kind: 'incident_resolved', severity: 'info', closes: 'critical' });
    expect(resolved.title).toBe(`Resolved after ${en.duration(7 * MIN)}: 429 storm on zhipu/glm-5.1`);
    expect(resolved.body).toBe(
      en.t('alerts.incidentResolvedBody', {
        openedAt: T0,
        closedAt: T0 + 7 * MIN,
        now: T0 + 7 * MIN,
        failedCalls: 42,
        rateLimitedCalls: 40,
        turnsLost: 3,
        restarts: 1,
      }),
    );
    // Chinese is worded in Chinese.
    expect(incidentResolvedNotice(closed, zh, T0 + 7 * MIN).title).toBe(
      `已解决，历时 ${zh.duration(7 * MIN)}：zhipu/glm-5.1 遭遇 429 风暴`,
    );
    // Several dependencies: the notice names none, the text names them all.
    expect(incidentOpenedNotice(incident({ deps: ['a/x', 'b/y'] }), en, T0).dep).toBeNull();
  });
});

describe('wireIncidentNotices', () => {
  function wired() {
    const service = new EventEmitter();
    const sent: NoticeInput[] = [];
    const clock = { now: T0 };
    const off = wireIncidentNotices(service, { notify: (n) => sent.push(n) }, en, () => clock.now);
    return { service, sent, clock, off };
  }

  it('one notice when it opens, one when it first turns critical, one when it is resolved', () => {
    const { service, sent, clock } = wired();
    service.emit('opened', incident());
    service.emit('updated', incident({ failedCalls: 80 }));
    clock.now = T0 + 2 * MIN;
    service.emit('updated', incident({ severity: 'critical' }));
    service.emit('updated', incident({ severity: 'critical', restarts: 2 }));
    clock.now = T0 + 7 * MIN;
    service.emit('closed', incident({ severity: 'critical', closedAt: T0 + 7 * MIN }));
    expect(sent.map((n) => [n.kind, n.severity, n.ts])).toEqual([
      ['incident_opened', 'warning', T0],
      ['incident_escalated', 'critical', T0 + 2 * MIN],
      ['incident_resolved', 'info', T0 + 7 * MIN],
    ]);
  });

  it('an incident first seen updated (BreakerBar restarted while it was open) is not announced again', () => {
    const { service, sent } = wired();
    service.emit('updated', incident({ severity: 'critical' }));
    service.emit('closed', incident({ severity: 'critical', closedAt: T0 + MIN }));
    expect(sent.map((n) => n.kind)).toEqual(['incident_resolved']);
  });

  it('unsubscribes', () => {
    const { service, sent, off } = wired();
    off();
    service.emit('opened', incident());
    expect(sent).toEqual([]);
    expect(service.listenerCount('opened')).toBe(0);
  });
});
