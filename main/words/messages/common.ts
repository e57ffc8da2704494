/** Words every surface shares: breaker states, severities, outcomes. */
import { area } from './area.js';

export const common = area(
  {
    'common.state.closed': 'closed',
    'common.state.open': 'open',
    'common.state.half_open': 'half-open',
    'common.state.throttled': 'throttled',
    'common.severity.info': 'info',
    'common.severity.warning': 'warning',
    'common.severity.critical': 'critical',
    'common.language.en': 'English',
    'common.language.zh-CN': '简体中文',
    'common.language.auto': 'System language',
    'common.calls': (p: { n: number }, f) => f.plural(p.n, { one: '# call', other: '# calls' }),
    'common.failures': (p: { n: number }, f) => f.plural(p.n, { one: '# failure', other: '# failures' }),
    'common.tokens': (p: { n: number }, f) => `${f.compact(p.n)} tokens`,
  },
  {
    'common.state.closed': '闭合',
    'common.state.open': '断开',
    'common.state.half_open': '半开',
    'common.state.throttled': '限流',
    'common.severity.info': '信息',
    'common.severity.warning': '警告',
    'common.severity.critical': '严重',
    'common.language.en': 'English',
    'common.language.zh-CN': '简体中文',
    'common.language.auto': '跟随系统',
    'common.calls': (p: { n: number }, f) => `${f.integer(p.n)} 次调用`,
    'common.failures': (p: { n: number }, f) => `${f.integer(p.n)} 次失败`,
    'common.tokens': (p: { n: number }, f) => `${f.compact(p.n)} tokens`,
  },
);
