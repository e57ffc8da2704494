/**
 * The Errors view's words: the time ranges and bar widths, the error groups,
 * the chart's summary, legend and hover text, and the restarts and breaker
 * transitions marked on it.
 */
import { area } from '../area.js';

export const errorsView = area(
  {
    'views.errors.tab': 'Errors',
    'views.errors.loadFailed': 'Could not load the history',
    'views.errors.range': 'Time range',
    'views.errors.range.hour': 'Last hour',
    'views.errors.range.day': 'Last day',
    'views.errors.range.week': 'Last week',
    'views.errors.per.hour': 'per minute',
    'views.errors.per.day': 'per 5 minutes',
    'views.errors.per.week': 'per 30 minutes',
    'views.errors.in.hour': 'last hour',
    'views.errors.in.day': 'last day',
    'views.errors.in.week': 'last week',
    'views.errors.group.rate_limited': '429 rate limited',
    'views.errors.group.overloaded': '529 overloaded',
    'views.errors.group.server_error': '5xx server error',
    'views.errors.group.timeout': 'timeout',
    'views.errors.group.connection_reset': 'connection reset',
    'views.errors.group.other': 'other errors',
    'views.errors.all': 'All dependencies',
    'views.errors.aria': (p: { title: string }) => `Errors: ${p.title}`,
    'views.errors.point': 'Point at a bar for its counts.',
    'views.errors.noCalls': (p: { range: string }) => `No calls in the ${p.range}.`,
    'views.errors.summary': (p: { errors: number; calls: number; range: string; per: string }, f) =>
      `${f.plural(p.errors, { one: '# error', other: '# errors' })} in ${f.plural(p.calls, { one: '# call', other: '# calls' })}, ${p.range} (bars ${p.per}).`,
    'views.errors.legend': (p: { label: string; n: number }, f) => `${p.label}: ${f.integer(p.n)}`,
    'views.errors.hoverPart': (p: { label: string; n: number }, f) => `${f.integer(p.n)} ${p.label}`,
    'views.errors.hover': (p: { time: string; parts: string[] }) =>
      `${p.time}: ${p.parts.length === 0 ? 'no errors' : p.parts.join(', ')}`,
    'views.errors.noMarks': 'No restarts or breaker transitions in this range.',
    'views.errors.marked': (p: { restarts: number; transitions: number }, f) =>
      `Marked: ${f.plural(p.restarts, { one: '# restart', other: '# restarts' })}, ${f.plural(p.transitions, { one: '# breaker transition', other: '# breaker transitions' })}`,
    'views.errors.earlier': (p: { n: number }, f) => `and ${f.integer(p.n)} earlier`,
  },
  {
    'views.errors.tab': '错误',
    'views.errors.loadFailed': '无法加载历史记录',
    'views.errors.range': '时间范围',
    'views.errors.range.hour': '最近一小时',
    'views.errors.range.day': '最近一天',
    'views.errors.range.week': '最近一周',
    'views.errors.per.hour': '每分钟',
    'views.errors.per.day': '每 5 分钟',
    'views.errors.per.week': '每 30 分钟',
    'views.errors.in.hour': '最近一小时',
    'views.errors.in.day': '最近一天',
    'views.errors.in.week': '最近一周',
    'views.errors.group.rate_limited': '429 限流',
    'views.errors.group.overloaded': '529 过载',
    'views.errors.group.server_error': '5xx 服务器错误',
    'views.errors.group.timeout': '超时',
    'views.errors.group.connection_reset': '连接被重置',
    'views.errors.group.other': '其他错误',
    'views.errors.all': '全部依赖',
    'views.errors.aria': (p: { title: string }) => `错误：${p.title}`,
    'views.errors.point': '指向柱形可查看其计数。',
    'views.errors.noCalls': (p: { range: string }) => `${p.range}没有调用。`,
    'views.errors.summary': (p: { errors: number; calls: number; range: string; per: string }, f) =>
      `${p.range}共 ${f.integer(p.calls)} 次调用，其中 ${f.integer(p.errors)} 次错误（每根柱形${p.per}）。`,
    'views.errors.legend': (p: { label: string; n: number }, f) => `${p.label}：${f.integer(p.n)}`,
    'views.errors.hoverPart': (p: { label: string; n: number }, f) => `${p.label} ${f.integer(p.n)} 次`,
    'views.errors.hover': (p: { time: string; parts: string[] }) =>
      `${p.time}：${p.parts.length === 0 ? '没有错误' : p.parts.join('，')}`,
    'views.errors.noMarks': '此范围内没有重启或熔断器状态变化。',
    'views.errors.marked': (p: { restarts: number; transitions: number }, f) =>
      `已标注：${f.integer(p.restarts)} 次重启，${f.integer(p.transitions)} 次熔断器状态变化`,
    'views.errors.earlier': (p: { n: number }, f) => `以及更早的 ${f.integer(p.n)} 项`,
  },
);
