/** Alerts: incident notices (opened, escalated, resolved) and the digest of what needed no action. */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';

/** A time in a notice: the time of day when it is within the day of `now`, else date and time. */
const at = (ts: number, now: number, f: Formatters) =>
  Math.abs(ts - now) < 20 * 3_600_000 ? f.clock(ts) : f.dateTime(ts);

/** What an incident is about, from its causes and figures (see main/core/incidents/incident-notices.ts). */
type What = { what: string };
type Figures = { failedCalls: number; rateLimitedCalls: number; turnsLost: number; restarts: number };

export const alerts = area(
  {
    // What an incident is about, one phrase per cause.
    'alerts.cause.storm': (p: { deps: string[] }, f) => `429 storm on ${f.list(p.deps)}`,
    'alerts.cause.breaker': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? 'a dependency failing' : `${f.list(p.deps)} failing`,
    'alerts.cause.gateway_dead': 'gateway down',
    'alerts.cause.gateway_hung': 'gateway hung',
    'alerts.cause.restart_budget': 'restart budget spent',
    'alerts.cause.source_error': 'cannot read what the gateway writes',
    'alerts.cause.cooldown_loop': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? 'OpenClaw cooldown loop' : `OpenClaw cooldown loop on ${f.list(p.deps)}`,
    'alerts.cause.quota': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? 'quota exhausted' : `quota exhausted on ${f.list(p.deps)}`,
    // Incident notices.
    'alerts.incidentOpenedTitle': (p: What) => `Incident: ${p.what}`,
    'alerts.incidentOpenedBody': (p: { openedAt: number; now: number; agents: string[] } & Figures, f) =>
      `Since ${at(p.openedAt, p.now, f)}: ${f.plural(p.failedCalls, { one: '# failed call', other: '# failed calls' })} (${f.integer(p.rateLimitedCalls)} rate-limited)${p.agents.length > 0 ? `, agents ${f.list(p.agents)}` : ''}. You will be told when it is resolved.`,
    'alerts.incidentEscalatedTitle': (p: What) => `Incident now critical: ${p.what}`,
    'alerts.incidentEscalatedBody': (p: { openedAt: number; now: number } & Figures, f) =>
      `Open since ${at(p.openedAt, p.now, f)}: ${f.plural(p.failedCalls, { one: '# failed call', other: '# failed calls' })}, ${f.plural(p.turnsLost, { one: '# turn lost', other: '# turns lost' })}, ${f.plural(p.restarts, { one: '# restart', other: '# restarts' })}. BreakerBar cannot heal it alone: someone should look now.`,
    'alerts.incidentResolvedTitle': (p: What & { lastedMs: number }, f) =>
      `Resolved after ${f.duration(p.lastedMs)}: ${p.what}`,
    'alerts.incidentResolvedBody': (p: { openedAt: number; closedAt: number; now: number } & Figures, f) =>
      `From ${at(p.openedAt, p.now, f)} to ${at(p.closedAt, p.now, f)}: ${f.plural(p.failedCalls, { one: '# failed call', other: '# failed calls' })} (${f.integer(p.rateLimitedCalls)} rate-limited), ${f.plural(p.turnsLost, { one: '# turn lost', other: '# turns lost' })}, ${f.plural(p.restarts, { one: '# restart', other: '# restarts' })}.`,
    // The digest.
    'alerts.digestTitle': (p: { count: number; spanMs: number }, f) =>
      `BreakerBar digest: ${f.plural(p.count, { one: '# notice', other: '# notices' })} in ${f.duration(p.spanMs)}`,
    'alerts.digestHeadline': (p: { title: string }) => `Most important: ${p.title}`,
    'alerts.digestLine': (p: { count: number; title: string }, f) => `${f.integer(p.count)} × ${p.title}`,
  },
  {
    'alerts.cause.storm': (p: { deps: string[] }, f) => `${f.list(p.deps)} 遭遇 429 风暴`,
    'alerts.cause.breaker': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? '有依赖调用失败' : `${f.list(p.deps)} 调用失败`,
    'alerts.cause.gateway_dead': '网关宕机',
    'alerts.cause.gateway_hung': '网关卡死',
    'alerts.cause.restart_budget': '重启次数已用完',
    'alerts.cause.source_error': '无法读取网关写出的文件',
    'alerts.cause.cooldown_loop': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? 'OpenClaw 冷却循环' : `${f.list(p.deps)} 陷入 OpenClaw 冷却循环`,
    'alerts.cause.quota': (p: { deps: string[] }, f) =>
      p.deps.length === 0 ? '配额已用尽' : `${f.list(p.deps)} 配额已用尽`,
    'alerts.incidentOpenedTitle': (p: What) => `事件：${p.what}`,
    'alerts.incidentOpenedBody': (p: { openedAt: number; now: number; agents: string[] } & Figures, f) =>
      `自 ${at(p.openedAt, p.now, f)} 起：${f.integer(p.failedCalls)} 次调用失败（其中 ${f.integer(p.rateLimitedCalls)} 次被限流）${p.agents.length > 0 ? `，涉及智能体 ${f.list(p.agents)}` : ''}。事件解决后会再通知你。`,
    'alerts.incidentEscalatedTitle': (p: What) => `事件升级为严重：${p.what}`,
    'alerts.incidentEscalatedBody': (p: { openedAt: number; now: number } & Figures, f) =>
      `自 ${at(p.openedAt, p.now, f)} 起未结束：${f.integer(p.failedCalls)} 次调用失败，${f.integer(p.turnsLost)} 轮对话丢失，重启 ${f.integer(p.restarts)} 次。BreakerBar 无法自行修复，请立即处理。`,
    'alerts.incidentResolvedTitle': (p: What & { lastedMs: number }, f) =>
      `已解决，历时 ${f.duration(p.lastedMs)}：${p.what}`,
    'alerts.incidentResolvedBody': (p: { openedAt: number; closedAt: number; now: number } & Figures, f) =>
      `${at(p.openedAt, p.now, f)} 至 ${at(p.closedAt, p.now, f)}：${f.integer(p.failedCalls)} 次调用失败（其中 ${f.integer(p.rateLimitedCalls)} 次被限流），${f.integer(p.turnsLost)} 轮对话丢失，重启 ${f.integer(p.restarts)} 次。`,
    'alerts.digestTitle': (p: { count: number; spanMs: number }, f) =>
      `BreakerBar 摘要：${f.duration(p.spanMs)} 内 ${f.integer(p.count)} 条通知`,
    'alerts.digestHeadline': (p: { title: string }) => `最重要：${p.title}`,
    'alerts.digestLine': (p: { count: number; title: string }, f) => `${f.integer(p.count)} × ${p.title}`,
  },
);
