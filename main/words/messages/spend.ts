/** Spend, budgets and quota windows: the `spend` command, the budget notice, the dashboard's spend words. */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';

type Unit = 'tokens' | 'usd';
type Period = 'day' | 'week' | 'month';
const amount = (unit: Unit, n: number, f: Formatters) => (unit === 'usd' ? f.usd(n) : f.compact(n));

export const spend = area(
  {
    'spend.span.today': 'Today',
    'spend.span.week': 'Last 7 days',
    'spend.span.month': 'Last 30 days',
    'spend.period.day': 'day',
    'spend.period.week': 'week',
    'spend.period.month': 'month',
    'spend.by.provider': 'Provider',
    'spend.by.model': 'Model',
    'spend.by.agent': 'Agent',
    'spend.column.calls': 'Calls',
    'spend.column.failures': 'Failures',
    'spend.column.tokens': 'Tokens',
    'spend.column.cost': 'Cost',
    'spend.total': 'Total',
    'spend.noCalls': 'No calls in this period.',
    'spend.heading': (p: { span: string; from: number; to: number }, f) =>
      `${p.span} (${f.dateTime(p.from)} – ${f.dateTime(p.to)})`,
    'spend.burn.heading': 'Burn rate (last hour)',
    'spend.burn.row': (p: { provider: string; tokensPerHour: number; usdPerHour: number }, f) =>
      `${p.provider}: ${f.compact(p.tokensPerHour)} tokens/h, ${f.usd(p.usdPerHour)}/h`,
    // Failed calls use no tokens: "no calls" would be false with a storm under way.
    'spend.burn.none': 'Nothing used in the last hour: no tokens, no cost.',
    'spend.budgets.heading': 'Budgets',
    'spend.budgets.none': 'No spend budgets configured (budgets.spend).',
    'spend.budget.row': (
      p: { provider: string; period: Period; unit: Unit; used: number; limit: number; projected: number },
      f,
    ) =>
      `${p.provider === '*' ? 'All providers' : p.provider}, this ${p.period}: ${amount(p.unit, p.used, f)} of ${amount(p.unit, p.limit, f)} (${f.percent(p.used / p.limit)}), ${amount(p.unit, p.projected, f)} projected`,
    'spend.budget.crossed': (p: { share: number }, f) => `over ${f.percent(p.share)}`,
    'spend.quota.heading': 'Quota windows (from OpenClaw)',
    'spend.quota.none': 'OpenClaw reports no quota windows.',
    'spend.quota.row': (p: { provider: string; window: string; usedShare: number | null }, f) =>
      `${p.provider} ${p.window}: ${p.usedShare === null ? 'use unknown' : `${f.percent(p.usedShare)} used`}`,
    'spend.quota.exhausted': 'exhausted',
    'spend.quota.resetsIn': (p: { ms: number }, f) => `resets in ${f.duration(p.ms)}`,
    'spend.notice.title': (p: { provider: string; period: Period; unit: Unit; share: number }, f) =>
      `${p.provider === '*' ? 'Spend' : `${p.provider} spend`} at ${f.percent(p.share)} of the ${p.period}'s ${p.unit === 'usd' ? 'cost' : 'token'} budget`,
    'spend.notice.body': (p: { unit: Unit; used: number; limit: number; projected: number; periodEnd: number }, f) =>
      `${amount(p.unit, p.used, f)} used of ${amount(p.unit, p.limit, f)}; at the last hour's rate, ${amount(p.unit, p.projected, f)} by ${f.dateTime(p.periodEnd)}.`,
  },
  {
    'spend.span.today': '今天',
    'spend.span.week': '最近 7 天',
    'spend.span.month': '最近 30 天',
    'spend.period.day': '日',
    'spend.period.week': '周',
    'spend.period.month': '月',
    'spend.by.provider': '服务商',
    'spend.by.model': '模型',
    'spend.by.agent': '智能体',
    'spend.column.calls': '调用',
    'spend.column.failures': '失败',
    'spend.column.tokens': '令牌',
    'spend.column.cost': '费用',
    'spend.total': '合计',
    'spend.noCalls': '此期间没有调用。',
    'spend.heading': (p: { span: string; from: number; to: number }, f) =>
      `${p.span}（${f.dateTime(p.from)} – ${f.dateTime(p.to)}）`,
    'spend.burn.heading': '消耗速度（最近一小时）',
    'spend.burn.row': (p: { provider: string; tokensPerHour: number; usdPerHour: number }, f) =>
      `${p.provider}：每小时 ${f.compact(p.tokensPerHour)} 令牌，${f.usd(p.usdPerHour)}`,
    'spend.burn.none': '最近一小时没有用量：没有令牌，没有费用。',
    'spend.budgets.heading': '预算',
    'spend.budgets.none': '未配置消费预算（budgets.spend）。',
    'spend.budget.row': (
      p: { provider: string; period: Period; unit: Unit; used: number; limit: number; projected: number },
      f,
    ) =>
      `${p.provider === '*' ? '全部服务商' : p.provider}，本${p.period === 'day' ? '日' : p.period === 'week' ? '周' : '月'}：已用 ${amount(p.unit, p.used, f)}，额度 ${amount(p.unit, p.limit, f)}（${f.percent(p.used / p.limit)}），预计 ${amount(p.unit, p.projected, f)}`,
    'spend.budget.crossed': (p: { share: number }, f) => `已超过 ${f.percent(p.share)}`,
    'spend.quota.heading': '配额窗口（来自 OpenClaw）',
    'spend.quota.none': 'OpenClaw 未报告任何配额窗口。',
    'spend.quota.row': (p: { provider: string; window: string; usedShare: number | null }, f) =>
      `${p.provider} ${p.window}：${p.usedShare === null ? '用量未知' : `已用 ${f.percent(p.usedShare)}`}`,
    'spend.quota.exhausted': '已用尽',
    'spend.quota.resetsIn': (p: { ms: number }, f) => `${f.duration(p.ms)}后重置`,
    'spend.notice.title': (p: { provider: string; period: Period; unit: Unit; share: number }, f) =>
      `${p.provider === '*' ? '消费' : `${p.provider} 消费`}已达本${p.period === 'day' ? '日' : p.period === 'week' ? '周' : '月'}${p.unit === 'usd' ? '费用' : '令牌'}预算的 ${f.percent(p.share)}`,
    'spend.notice.body': (p: { unit: Unit; used: number; limit: number; projected: number; periodEnd: number }, f) =>
      `已用 ${amount(p.unit, p.used, f)}，额度 ${amount(p.unit, p.limit, f)}；按最近一小时的速度，到 ${f.dateTime(p.periodEnd)} 将达到 ${amount(p.unit, p.projected, f)}。`,
  },
);
