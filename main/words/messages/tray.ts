/** The tray: why the state is not healthy, the menu's lines and actions (see main/app/tray-model.ts). */
import { type Formatters, moment } from '../i18n.js';
import { area } from './area.js';

type State = 'closed' | 'half_open' | 'open' | 'throttled';
type Trigger = string;
type CooldownKind = 'cooldown' | 'disabled' | 'blocked';

const EN_STATE: Record<State, string> = {
  closed: 'closed',
  half_open: 'half-open',
  open: 'open',
  throttled: 'throttled',
};
const ZH_STATE: Record<State, string> = { closed: '闭合', half_open: '半开', open: '断开', throttled: '限流' };
const ZH_TRIGGER: Record<string, string> = {
  storm: '429 风暴',
  health: '健康检查',
  manual: '手动',
  gateway: '网关自身',
};
const ZH_KIND: Record<CooldownKind, string> = { cooldown: '冷却', disabled: '停用', blocked: '额度受限' };
const EN_RESULT: Record<string, string> = {
  running: 'running',
  started: 'gateway started',
  recovered: 'recovered',
  not_recovered: 'did not recover',
  failed: 'failed',
  dry_run: 'dry run, not restarted',
  pending: 'pending',
  recovering: 'waiting for the gateway to start',
};
const ZH_RESULT: Record<string, string> = {
  running: '进行中',
  started: '网关已启动',
  recovered: '已恢复',
  not_recovered: '未能恢复',
  failed: '失败',
  dry_run: '演练，未重启',
  pending: '已排期',
  recovering: '等待网关启动',
};

export const tray = area(
  {
    // Why the state is not healthy.
    'tray.reason.gatewayDown': (p: { cls: string; forMs: number | null }, f: Formatters) =>
      `gateway down (${p.cls})${p.forMs === null ? '' : ` for ${f.duration(p.forMs)}`}`,
    'tray.reason.gatewayBusy': (p: { cls: string }) => `gateway ${p.cls}`,
    'tray.reason.gatewayAnswers': (p: { cls: string }) => `gateway answers ${p.cls}`,
    'tray.reason.breaker': (p: { dep: string; state: State }) => `${p.dep} ${EN_STATE[p.state]}`,
    'tray.reason.cooldown': (p: { dep: string; words: string }) => `${p.dep} ${p.words}`,
    'tray.reason.budget': (p: { max: number }) => `restart budget exhausted (${p.max} per hour)`,
    'tray.reason.restarting': 'gateway restarting',
    'tray.reason.deferred': (p: { dep: string; cause: 'cooldown' | 'retry_after' }) =>
      `restart deferred for ${p.dep} (${p.cause === 'cooldown' ? 'OpenClaw cooldown' : 'Retry-After'})`,
    'tray.reason.paused': 'watchdog paused',
    'tray.reason.dryRun': 'watchdog in dry run',
    'tray.reason.diverging': 'probes green while a breaker stays open',
    'tray.reason.noStrategy': 'no way to restart the gateway',
    'tray.reason.neverHealthy': 'watchdog waiting to see the gateway healthy',
    'tray.reason.source': (p: { source: string }) => `cannot read ${p.source}`,
    'tray.reason.coreUnreachable': (p: { detail: string }) => `core not reachable: ${p.detail}`,
    // The tooltip without a status to say the headline from.
    'tray.tooltip.core': (p: { text: string }) => `BreakerBar: ${p.text}`,
    'tray.tooltip.connecting': 'connecting to the core…',
    // Menu lines.
    'tray.core.detail': (p: { detail: string }) => `Core: ${p.detail}`,
    'tray.core.unreachable': (p: { detail: string }) => `Core not reachable: ${p.detail}`,
    'tray.core.retry': (p: { at: number; now: number }, f: Formatters) => `Trying again ${f.relative(p.at, p.now)}`,
    'tray.core.embedded': 'Core: running in this app',
    'tray.core.daemon': (p: { pid: number | null }) =>
      `Core: BreakerBar daemon${p.pid === null ? '' : ` (pid ${p.pid})`}`,
    'tray.gateway.notWatched': 'Gateway: not watched by this core',
    'tray.gateway.notProbed': 'Gateway: not probed yet',
    'tray.gateway.up': (p: { uptimeMs: number | null }, f: Formatters) =>
      `Gateway: up${p.uptimeMs === null ? '' : ` ${f.duration(p.uptimeMs)}`}`,
    'tray.gateway.down': (p: { cls: string; forMs: number | null }, f: Formatters) =>
      `Gateway: down (${p.cls})${p.forMs === null ? '' : ` for ${f.duration(p.forMs)}`}`,
    'tray.gateway.busy': (p: { cls: string }) => `Gateway: ${p.cls}…`,
    'tray.gateway.answers': (p: { cls: string }) => `Gateway: answers ${p.cls}`,
    'tray.gateway.probed': (p: { at: number; now: number }, f: Formatters) => `probed ${f.relative(p.at, p.now)}`,
    'tray.watchdog.restarting': (p: { trigger: Trigger; since: number; now: number }, f: Formatters) =>
      `Watchdog: restarting the gateway (${p.trigger}) since ${f.relative(p.since, p.now)}`,
    'tray.watchdog.verifying': (p: { since: number; now: number }, f: Formatters) =>
      `Watchdog: verifying recovery since ${f.relative(p.since, p.now)}`,
    'tray.watchdog.pausedUntilResumed': 'Watchdog: paused until resumed',
    'tray.watchdog.pausedUntil': (p: { until: number; now: number }, f: Formatters) =>
      `Watchdog: paused until ${moment(p.until, p.now, f)} (${f.relative(p.until, p.now)})`,
    'tray.watchdog.watchOnly': 'Watchdog: watch only (restarts off)',
    'tray.watchdog.deferred': (p: { dep: string; until: number; now: number }, f: Formatters) =>
      `Watchdog: restart deferred for ${p.dep}, ${f.relative(p.until, p.now)}`,
    'tray.watchdog.budgetExhausted': (p: { left: number; max: number }) =>
      `Watchdog: restart budget exhausted (${p.left}/${p.max} restarts left this hour)`,
    'tray.watchdog.active': (p: { dryRun: boolean; left: number; max: number }) =>
      `Watchdog: ${p.dryRun ? 'dry run' : 'active'} · ${p.left}/${p.max} restarts left this hour`,
    'tray.dep.state': (p: { state: State; forced: boolean }) => `${EN_STATE[p.state]}${p.forced ? ' (forced)' : ''}`,
    'tray.dep.retryAfterEnds': (p: { until: number; now: number }, f: Formatters) =>
      `Retry-After ends ${f.relative(p.until, p.now)}`,
    'tray.dep.retryAfterOver': 'Retry-After over, next call is a trial',
    'tray.dep.nextProbe': (p: { until: number; now: number }, f: Formatters) =>
      `next probe ${f.relative(p.until, p.now)}`,
    'tray.dep.nextCallTrial': 'next call is a trial',
    'tray.dep.trying': (p: { ok: number }) => `trying (${p.ok} ok)`,
    'tray.dep.cooldown': (p: { kind: CooldownKind; leftMs: number; reason: string | null }, f: Formatters) =>
      `OpenClaw ${p.kind}: ${f.duration(p.leftMs)} left (${p.reason ?? 'no reason given'})`,
    'tray.dep.line': (p: { dep: string; parts: string[] }) => `${p.dep}: ${p.parts.join(', ')}`,
    'tray.deps.none': 'No dependencies seen yet',
    'tray.deps.more': (p: { n: number; allClosed: boolean }) =>
      `…and ${p.n} more${p.allClosed ? ', all closed' : ''} (Open Dashboard)`,
    'tray.lastRestart': (
      p: { ts: number; now: number; trigger: Trigger; reason: string; result: string; recoveryMs: number | null },
      f: Formatters,
    ) =>
      `Last restart ${f.relative(p.ts, p.now)} (${p.trigger}: ${p.reason}): ${EN_RESULT[p.result] ?? p.result}${
        p.recoveryMs === null ? '' : ` in ${f.duration(p.recoveryMs)}`
      }`,
    // Actions.
    'tray.action.restarting': 'Restarting Gateway…',
    'tray.action.restartConfirm': 'Restart Gateway…',
    'tray.action.restart': 'Restart Gateway',
    'tray.action.resume': 'Resume Watchdog',
    'tray.action.pause': 'Pause Watchdog',
    'tray.action.pause15m': 'For 15 Minutes',
    'tray.action.pause1h': 'For 1 Hour',
    'tray.action.pauseUntilResumed': 'Until Resumed',
    'tray.action.openDashboard': 'Open Dashboard',
    'tray.action.openLogs': 'Open Logs Folder',
    'tray.action.openMetrics': 'Open Metrics in Browser',
    'tray.action.launchAtLogin': 'Launch at Login',
    'tray.action.confirmRestart': 'Ask Before Restarting',
    'tray.action.quit': 'Quit BreakerBar',
    // The restart dialog.
    'tray.dialog.restartQuestion': 'Restart the OpenClaw gateway?',
    'tray.dialog.restartDetail':
      'With the openclaw CLI the gateway first finishes the work in progress (at most 5 minutes), then restarts. A restart that is already running is not doubled.',
    'tray.dialog.restart': 'Restart',
    'tray.dialog.cancel': 'Cancel',
    'tray.dialog.dontAsk': 'Do not ask again',
    'tray.dialog.notRestarted': 'The gateway was not restarted',
    'tray.dialog.ok': 'OK',
  },
  {
    'tray.reason.gatewayDown': (p: { cls: string; forMs: number | null }, f: Formatters) =>
      `网关宕机（${p.cls}）${p.forMs === null ? '' : `已 ${f.duration(p.forMs)}`}`,
    'tray.reason.gatewayBusy': (p: { cls: string }) => `网关${p.cls === 'draining' ? '正在排空' : '正在启动'}`,
    'tray.reason.gatewayAnswers': (p: { cls: string }) => `网关返回 ${p.cls}`,
    'tray.reason.breaker': (p: { dep: string; state: State }) => `${p.dep} ${ZH_STATE[p.state]}`,
    'tray.reason.cooldown': (p: { dep: string; words: string }) => `${p.dep} ${p.words}`,
    'tray.reason.budget': (p: { max: number }) => `重启次数已用完（每小时 ${p.max} 次）`,
    'tray.reason.restarting': '网关正在重启',
    'tray.reason.deferred': (p: { dep: string; cause: 'cooldown' | 'retry_after' }) =>
      `${p.dep} 的重启已推迟（${p.cause === 'cooldown' ? 'OpenClaw 冷却' : 'Retry-After'}）`,
    'tray.reason.paused': '看门狗已暂停',
    'tray.reason.dryRun': '看门狗处于演练模式',
    'tray.reason.diverging': '探测正常，但有熔断器一直断开',
    'tray.reason.noStrategy': '无法重启网关',
    'tray.reason.neverHealthy': '看门狗在等待网关首次健康',
    'tray.reason.source': (p: { source: string }) => `无法读取 ${p.source}`,
    'tray.reason.coreUnreachable': (p: { detail: string }) => `无法连接核心：${p.detail}`,
    'tray.tooltip.core': (p: { text: string }) => `BreakerBar：${p.text}`,
    'tray.tooltip.connecting': '正在连接核心…',
    'tray.core.detail': (p: { detail: string }) => `核心：${p.detail}`,
    'tray.core.unreachable': (p: { detail: string }) => `无法连接核心：${p.detail}`,
    'tray.core.retry': (p: { at: number; now: number }, f: Formatters) => `${f.relative(p.at, p.now)}重试`,
    'tray.core.embedded': '核心：运行在本应用内',
    'tray.core.daemon': (p: { pid: number | null }) =>
      `核心：BreakerBar 守护进程${p.pid === null ? '' : `（pid ${p.pid}）`}`,
    'tray.gateway.notWatched': '网关：本核心未监视',
    'tray.gateway.notProbed': '网关：尚未探测',
    'tray.gateway.up': (p: { uptimeMs: number | null }, f: Formatters) =>
      `网关：运行中${p.uptimeMs === null ? '' : ` ${f.duration(p.uptimeMs)}`}`,
    'tray.gateway.down': (p: { cls: string; forMs: number | null }, f: Formatters) =>
      `网关：宕机（${p.cls}）${p.forMs === null ? '' : `已 ${f.duration(p.forMs)}`}`,
    'tray.gateway.busy': (p: { cls: string }) => `网关：${p.cls === 'draining' ? '正在排空' : '正在启动'}…`,
    'tray.gateway.answers': (p: { cls: string }) => `网关：返回 ${p.cls}`,
    'tray.gateway.probed': (p: { at: number; now: number }, f: Formatters) => `${f.relative(p.at, p.now)}探测`,
    'tray.watchdog.restarting': (p: { trigger: Trigger; since: number; now: number }, f: Formatters) =>
      `看门狗：${f.relative(p.since, p.now)}起正在重启网关（${ZH_TRIGGER[p.trigger] ?? p.trigger}）`,
    'tray.watchdog.verifying': (p: { since: number; now: number }, f: Formatters) =>
      `看门狗：${f.relative(p.since, p.now)}起确认恢复中`,
    'tray.watchdog.pausedUntilResumed': '看门狗：已暂停，直到手动恢复',
    'tray.watchdog.pausedUntil': (p: { until: number; now: number }, f: Formatters) =>
      `看门狗：暂停至 ${moment(p.until, p.now, f)}（${f.relative(p.until, p.now)}）`,
    'tray.watchdog.watchOnly': '看门狗：仅监视（不重启）',
    'tray.watchdog.deferred': (p: { dep: string; until: number; now: number }, f: Formatters) =>
      `看门狗：${p.dep} 的重启已推迟，${f.relative(p.until, p.now)}`,
    'tray.watchdog.budgetExhausted': (p: { left: number; max: number }) =>
      `看门狗：重启次数已用完（本小时剩余 ${p.left}/${p.max} 次）`,
    'tray.watchdog.active': (p: { dryRun: boolean; left: number; max: number }) =>
      `看门狗：${p.dryRun ? '演练模式' : '运行中'} · 本小时剩余 ${p.left}/${p.max} 次重启`,
    'tray.dep.state': (p: { state: State; forced: boolean }) => `${ZH_STATE[p.state]}${p.forced ? '（强制）' : ''}`,
    'tray.dep.retryAfterEnds': (p: { until: number; now: number }, f: Formatters) =>
      `Retry-After ${f.relative(p.until, p.now)}结束`,
    'tray.dep.retryAfterOver': 'Retry-After 已结束，下一次调用为试探',
    'tray.dep.nextProbe': (p: { until: number; now: number }, f: Formatters) => `${f.relative(p.until, p.now)}试探`,
    'tray.dep.nextCallTrial': '下一次调用为试探',
    'tray.dep.trying': (p: { ok: number }) => `试探中（${p.ok} 次成功）`,
    'tray.dep.cooldown': (p: { kind: CooldownKind; leftMs: number; reason: string | null }, f: Formatters) =>
      `OpenClaw ${ZH_KIND[p.kind]}：剩余 ${f.duration(p.leftMs)}（${p.reason ?? '未说明原因'}）`,
    'tray.dep.line': (p: { dep: string; parts: string[] }) => `${p.dep}：${p.parts.join('，')}`,
    'tray.deps.none': '尚未见到任何依赖',
    'tray.deps.more': (p: { n: number; allClosed: boolean }) =>
      `……另有 ${p.n} 个${p.allClosed ? '，全部闭合' : ''}（打开仪表盘查看）`,
    'tray.lastRestart': (
      p: { ts: number; now: number; trigger: Trigger; reason: string; result: string; recoveryMs: number | null },
      f: Formatters,
    ) =>
      `上次重启 ${f.relative(p.ts, p.now)}（${ZH_TRIGGER[p.trigger] ?? p.trigger}：${p.reason}）：${ZH_RESULT[p.result] ?? p.result}${
        p.recoveryMs === null ? '' : `，用时 ${f.duration(p.recoveryMs)}`
      }`,
    'tray.action.restarting': '正在重启网关…',
    'tray.action.restartConfirm': '重启网关…',
    'tray.action.restart': '重启网关',
    'tray.action.resume': '恢复看门狗',
    'tray.action.pause': '暂停看门狗',
    'tray.action.pause15m': '15 分钟',
    'tray.action.pause1h': '1 小时',
    'tray.action.pauseUntilResumed': '直到手动恢复',
    'tray.action.openDashboard': '打开仪表盘',
    'tray.action.openLogs': '打开日志文件夹',
    'tray.action.openMetrics': '在浏览器中打开指标',
    'tray.action.launchAtLogin': '登录时启动',
    'tray.action.confirmRestart': '重启前询问',
    'tray.action.quit': '退出 BreakerBar',
    'tray.dialog.restartQuestion': '要重启 OpenClaw 网关吗？',
    'tray.dialog.restartDetail':
      '使用 openclaw CLI 时，网关会先完成手头的工作（最多 5 分钟），然后重启。已在进行的重启不会重复执行。',
    'tray.dialog.restart': '重启',
    'tray.dialog.cancel': '取消',
    'tray.dialog.dontAsk': '不再询问',
    'tray.dialog.notRestarted': '网关没有重启',
    'tray.dialog.ok': '好',
  },
);
