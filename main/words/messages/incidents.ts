/** Incidents: the `incidents` command's table and timeline, and the incidents line of `status`. */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';

export const incidents = area(
  {
    'incidents.label': 'Incidents',
    'incidents.openCount': (p: { n: number }, f: Formatters) => f.plural(p.n, { other: '# open' }),
    'incidents.mttr': (p: { weeks: Array<{ weeksAgo: number; ms: number }> }, f: Formatters) =>
      `MTTR ${p.weeks
        .map(({ weeksAgo, ms }) =>
          weeksAgo === 0
            ? `${f.duration(ms)} this week`
            : weeksAgo === 1
              ? `${f.duration(ms)} last week`
              : `${f.duration(ms)} ${weeksAgo} weeks ago`,
        )
        .join(', ')}`,
    'incidents.noneClosed': 'none closed in the last 4 weeks',
    'incidents.noneRecorded': 'No incidents recorded.',
    'incidents.column.id': 'id',
    'incidents.column.opened': 'opened',
    'incidents.column.duration': 'duration',
    'incidents.column.severity': 'severity',
    'incidents.column.causes': 'causes',
    'incidents.column.deps': 'dependencies',
    'incidents.column.turnsLost': 'turns lost',
    'incidents.column.restarts': 'restarts',
    'incidents.stillOpen': 'open',
    'incidents.severity.info': 'info',
    'incidents.severity.warning': 'warning',
    'incidents.severity.critical': 'critical',
    'incidents.cause.breaker': 'breaker',
    'incidents.cause.gateway_dead': 'gateway dead',
    'incidents.cause.gateway_hung': 'gateway hung',
    'incidents.cause.restart_budget': 'restart budget spent',
    'incidents.cause.source_error': 'source unreadable',
    'incidents.cause.cooldown_loop': 'cooldown loop',
    'incidents.cause.quota': 'quota exhausted',
    'incidents.heading': (p: { id: number; severity: string; causes: string }) =>
      `Incident ${p.id} (${p.severity}): ${p.causes}`,
    'incidents.span': (p: { openedAt: number; closedAt: number | null; now: number }, f: Formatters) =>
      p.closedAt === null
        ? `Opened ${f.dateTime(p.openedAt)}, open for ${f.duration(p.now - p.openedAt)}`
        : `Opened ${f.dateTime(p.openedAt)}, closed ${f.dateTime(p.closedAt)} after ${f.duration(p.closedAt - p.openedAt)}`,
    'incidents.cost': (
      p: {
        failedCalls: number;
        rateLimitedCalls: number;
        turnsLost: number;
        restarts: number;
        notifications: number;
      },
      f: Formatters,
    ) =>
      [
        f.plural(p.failedCalls, { one: '# failed call', other: '# failed calls' }) +
          ` (${f.integer(p.rateLimitedCalls)} rate limited)`,
        f.plural(p.turnsLost, { one: '# turn lost', other: '# turns lost' }),
        f.plural(p.restarts, { one: '# restart', other: '# restarts' }),
        f.plural(p.notifications, { one: '# notification', other: '# notifications' }),
      ].join(', '),
    'incidents.touched': (p: { deps: string[]; agents: string[] }, f: Formatters) =>
      `Dependencies: ${p.deps.length > 0 ? f.list(p.deps) : '-'}; agents: ${p.agents.length > 0 ? f.list(p.agents) : '-'}`,
    'incidents.timeline': 'Timeline',
  },
  {
    'incidents.label': '事件',
    'incidents.openCount': (p: { n: number }, f: Formatters) => `${f.integer(p.n)} 个未结束`,
    'incidents.mttr': (p: { weeks: Array<{ weeksAgo: number; ms: number }> }, f: Formatters) =>
      `平均恢复时间：${p.weeks
        .map(({ weeksAgo, ms }) =>
          weeksAgo === 0
            ? `本周 ${f.duration(ms)}`
            : weeksAgo === 1
              ? `上周 ${f.duration(ms)}`
              : `${f.integer(weeksAgo)} 周前 ${f.duration(ms)}`,
        )
        .join('，')}`,
    'incidents.noneClosed': '最近 4 周没有结束的事件',
    'incidents.noneRecorded': '没有记录到事件。',
    'incidents.column.id': '编号',
    'incidents.column.opened': '开始',
    'incidents.column.duration': '持续',
    'incidents.column.severity': '严重程度',
    'incidents.column.causes': '原因',
    'incidents.column.deps': '依赖',
    'incidents.column.turnsLost': '失败轮次',
    'incidents.column.restarts': '重启',
    'incidents.stillOpen': '进行中',
    'incidents.severity.info': '提示',
    'incidents.severity.warning': '警告',
    'incidents.severity.critical': '严重',
    'incidents.cause.breaker': '熔断器',
    'incidents.cause.gateway_dead': '网关宕机',
    'incidents.cause.gateway_hung': '网关卡住',
    'incidents.cause.restart_budget': '重启额度用尽',
    'incidents.cause.source_error': '数据源无法读取',
    'incidents.cause.cooldown_loop': '冷却循环',
    'incidents.cause.quota': '配额耗尽',
    'incidents.heading': (p: { id: number; severity: string; causes: string }) =>
      `事件 ${p.id}（${p.severity}）：${p.causes}`,
    'incidents.span': (p: { openedAt: number; closedAt: number | null; now: number }, f: Formatters) =>
      p.closedAt === null
        ? `开始于 ${f.dateTime(p.openedAt)}，已持续 ${f.duration(p.now - p.openedAt)}`
        : `开始于 ${f.dateTime(p.openedAt)}，结束于 ${f.dateTime(p.closedAt)}，历时 ${f.duration(p.closedAt - p.openedAt)}`,
    'incidents.cost': (
      p: {
        failedCalls: number;
        rateLimitedCalls: number;
        turnsLost: number;
        restarts: number;
        notifications: number;
      },
      f: Formatters,
    ) =>
      `失败调用 ${f.integer(p.failedCalls)} 次（其中限流 ${f.integer(p.rateLimitedCalls)} 次），失败轮次 ${f.integer(p.turnsLost)} 个，重启 ${f.integer(p.restarts)} 次，通知 ${f.integer(p.notifications)} 条`,
    'incidents.touched': (p: { deps: string[]; agents: string[] }, f: Formatters) =>
      `依赖：${p.deps.length > 0 ? f.list(p.deps) : '-'}；智能体：${p.agents.length > 0 ? f.list(p.agents) : '-'}`,
    'incidents.timeline': '时间线',
  },
);
