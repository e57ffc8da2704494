/** `breakerbar status` and `breakerbar doctor`: the labels, states and sentences of their text output. */
import { type Formatters, moment } from '../i18n.js';
import { area } from './area.js';
import { enOwner, type OwnerWords, zhOwner } from './gateway-owner.js';

type Trigger = string;
/** An operator's control of a breaker (as breaker-reasons.ts's BreakerControl, which imports this catalogue). */
type BreakerControl = 'force_open' | 'force_closed' | 'reset';
type DoctorArea = 'config' | 'openclaw' | 'sources' | 'gateway' | 'restart' | 'notifications' | 'breakerbar';

const EN_AREA: Record<DoctorArea, string> = {
  config: 'Configuration',
  openclaw: 'OpenClaw',
  sources: 'Sources',
  gateway: 'Gateway',
  restart: 'Restart',
  notifications: 'Notifications',
  breakerbar: 'BreakerBar',
};
const ZH_AREA: Record<DoctorArea, string> = {
  config: '配置',
  openclaw: 'OpenClaw',
  sources: '数据来源',
  gateway: '网关',
  restart: '重启',
  notifications: '通知',
  breakerbar: 'BreakerBar',
};

const ZH_TRIGGER: Record<string, string> = {
  storm: '429 风暴',
  health: '健康检查',
  manual: '手动',
  gateway: '网关自身',
};
const ZH_RESULT: Record<string, string> = {
  running: '进行中',
  recovering: '等待网关启动',
  pending: '已排期',
  recovered: '已恢复',
  not_recovered: '未能恢复',
  failed: '失败',
  dry_run: '演练，未重启',
  started: '网关已启动',
};
/** The watchdog's answer to restart, pause and resume (`quiet` is resume's: nothing to restart). */
const ZH_ANSWER: Record<string, string> = {
  restart: '重启',
  in_flight: '未重启',
  pending: '未重启',
  paused: '已暂停',
  quiet: '已恢复',
};
const ZH_CONTROL: Record<BreakerControl, string> = { force_open: '强制断开', force_closed: '强制闭合', reset: '重置' };
const ZH_STATE: Record<string, string> = { closed: '闭合', half_open: '半开', open: '断开', throttled: '限流' };
const ZH_KIND: Record<string, string> = { cooldown: '冷却', disabled: '停用', blocked: '额度受限' };

export const cli = area(
  {
    // `breakerbar status`: section labels.
    'cli.status.version': (p: { version: string }) => `BreakerBar ${p.version}`,
    'cli.status.label.gateway': 'Gateway',
    'cli.status.label.watchdog': 'Watchdog',
    // The gateway.
    'cli.status.gateway.notProbed': 'not probed yet',
    'cli.status.gateway.up': 'up',
    'cli.status.gateway.upFor': (p: { ms: number }, f: Formatters) => `, up for ${f.duration(p.ms)}`,
    'cli.status.gateway.downSince': (p: { since: number; now: number }, f: Formatters) =>
      `, since ${f.relative(p.since, p.now)}`,
    'cli.status.gateway.probe': (p: { detail: string; ts: number; now: number }, f: Formatters) =>
      ` (${p.detail}, ${f.relative(p.ts, p.now)})`,
    // The watchdog.
    'cli.status.watchdog.disabled': 'disabled (watch only)',
    'cli.status.watchdog.pausedUntil': (p: { until: number; now: number }, f: Formatters) =>
      `paused until ${moment(p.until, p.now, f)}`,
    'cli.status.watchdog.pausedUntilResumed': 'paused until resumed',
    'cli.status.watchdog.dryRun': 'dry run (decides, never restarts)',
    'cli.status.watchdog.active': 'active',
    'cli.status.watchdog.counters': (p: {
      mode: string;
      checks: number;
      threshold: number;
      failures: number;
      failuresMax: number;
      left: number;
      max: number;
      stormRestart: boolean;
    }) =>
      `${p.mode}; 429 checks ${p.stormRestart ? `${p.checks}/${p.threshold}` : `${p.checks} (storms waited out, not restarted)`}, dead probes ${p.failures}/${p.failuresMax}, restart budget ${p.left}/${p.max} this hour`,
    'cli.status.watchdog.restartRunning': (p: { trigger: Trigger; since: number; now: number }, f: Formatters) =>
      `restart running (${p.trigger}) since ${f.relative(p.since, p.now)}`,
    'cli.status.watchdog.restartPending': (p: { since: number; now: number }, f: Formatters) =>
      `restart pending since ${f.relative(p.since, p.now)}: OpenClaw restarts once its work has drained`,
    'cli.status.watchdog.restartedItself': (p: { since: number; now: number }, f: Formatters) =>
      `the gateway restarted itself ${f.relative(p.since, p.now)}: waiting for it to start`,
    'cli.status.watchdog.verifying': (p: { since: number; now: number }, f: Formatters) =>
      `verifying recovery since ${f.relative(p.since, p.now)}: waiting for /startupz to say started`,
    'cli.status.watchdog.storm': (p: { since: number; now: number }, f: Formatters) =>
      `429 storm since ${f.relative(p.since, p.now)}`,
    'cli.status.watchdog.held': (
      p: { stormSince: number | null; dep: string; until: number; now: number; cause: 'cooldown' | 'retry_after' },
      f: Formatters,
    ) =>
      `429 storm${p.stormSince === null ? '' : ` since ${f.relative(p.stormSince, p.now)}`}: restart held for ${p.dep} until ${moment(p.until, p.now, f)} (${p.cause === 'cooldown' ? "OpenClaw's cooldown" : 'Retry-After'})`,
    'cli.status.watchdog.neverHealthy':
      'no automatic restart: the gateway has not been seen healthy since BreakerBar started',
    'cli.status.watchdog.notRunnable': (p: { problem: string | null }) =>
      `no automatic restart: ${p.problem ?? 'the restart strategy cannot run'}`,
    'cli.status.watchdog.diverging': 'ALARM: health probes green while a breaker stays open',
    'cli.status.lastRestart': (
      p: { ts: number; now: number; trigger: Trigger; reason: string; result: string; recoveryMs: number | null },
      f: Formatters,
    ) =>
      `Last restart ${f.relative(p.ts, p.now)} (${p.trigger}: ${p.reason}): ${p.result}${
        p.recoveryMs === null ? '' : `, recovered in ${f.duration(p.recoveryMs)}`
      }`,
    'cli.status.restartsVia': (p: { description: string | null; problem: string | null }) =>
      `Restarts via ${p.description ?? `nothing: ${p.problem}`}`,
    'cli.status.owner': (p: OwnerWords) => `Gateway owner: ${enOwner(p)}`,
    'cli.status.watchdog.ownerBlocked': (p: {
      rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled';
    }): string =>
      p.rule === 'stopped_itself'
        ? 'no automatic restart: OpenClaw stopped itself (its database schema is newer than the gateway, exit 78); upgrade OpenClaw'
        : p.rule === 'external_supervisor'
          ? 'no automatic restart: the external supervisor restarts the gateway (set watchdog.restartCommand to go through it)'
          : "no automatic restart: the OpenClaw app's bundled gateway has no CLI or LaunchAgent to restart it through",
    // The breakers.
    'cli.status.noDependencies': 'No dependencies seen yet.',
    'cli.status.nothingRead': (p: { places: string[] }) =>
      `Nothing read from OpenClaw yet: no model call in ${p.places.length > 0 ? p.places.join(', ') : 'any source'}. Is OpenClaw installed here, or is its state directory elsewhere (set openclawDir)? \`breakerbar doctor\` says what it found.`,
    'cli.status.col.dependency': 'dependency',
    'cli.status.col.state': 'state',
    'cli.status.col.calls': 'calls',
    'cli.status.col.failed': 'failed',
    'cli.status.col.until': 'until',
    'cli.status.col.cooldown': 'OpenClaw cooldown',
    'cli.status.breaker.state': (p: { state: string; forced: boolean }) => `${p.state}${p.forced ? ' (forced)' : ''}`,
    'cli.status.breaker.until': (p: { until: number; now: number }, f: Formatters) =>
      `in ${f.duration(p.until - p.now)}`,
    'cli.status.breaker.cooldown': (p: { leftMs: number; why: string }, f: Formatters) =>
      `${f.duration(p.leftMs)} left (${p.why})`,
    // OpenClaw's own cooldowns.
    'cli.status.cooldown': (
      p: { kind: string; dep: string; leftMs: number; why: string | null; profile: string; errors: number | null },
      f: Formatters,
    ) =>
      `OpenClaw ${p.kind} ${p.dep}: ${f.duration(p.leftMs)} left (${p.why ?? 'no reason recorded'}), profile ${p.profile}${
        p.errors !== null && p.errors > 0 ? `, ${f.plural(p.errors, { one: '# error', other: '# errors' })}` : ''
      }`,
    'cli.status.cooldownUnread': (p: { path: string; error: string }) =>
      `OpenClaw cooldown state ${p.path} not fully read: ${p.error}`,
    'cli.status.notifications': (p: { channels: string[] }) => `Notifications: ${p.channels.join(', ')}`,

    // `breakerbar doctor`.
    'cli.doctor.heading': (p: { area: DoctorArea }) => EN_AREA[p.area],
    'cli.doctor.fix': (p: { fix: string }) => `fix: ${p.fix}`,
    'cli.doctor.summary': (p: { error: number; warn: number; ok: number }, f: Formatters) => {
      if (p.error === 0 && p.warn === 0) return `No problems found (${f.integer(p.ok)} ok).`;
      const parts: string[] = [];
      if (p.error > 0) parts.push(f.plural(p.error, { one: '# problem', other: '# problems' }));
      if (p.warn > 0) parts.push(f.plural(p.warn, { one: '# warning', other: '# warnings' }));
      return `${parts.join(', ')}.`;
    },
    'cli.maintenance.none': 'no maintenance window and no quiet hours: notifications and automatic restarts as usual',
    'cli.maintenance.quietHours': (p: { until: number | null; now: number; reason: string }, f) =>
      `quiet hours ${p.until === null ? 'until stopped' : `until ${f.relative(p.until, p.now)}`} (${p.reason}): only critical notifications`,
    'cli.maintenance.window': (p: { until: number | null; now: number; reason: string; manual: boolean }, f) =>
      `maintenance ${p.until === null ? 'until stopped' : `until ${f.relative(p.until, p.now)}`}, ${p.manual ? 'started by hand' : 'recurring'} (${p.reason}): no notifications, no automatic restarts`,
    'cli.maintenance.noneStopped': 'no maintenance window started by hand was in force',
    // `breakerbar breaker open|close|reset`: the API's states and action words, then why.
    'cli.breaker.transition': (p: { dep: string; from: string; to: string; why: string }) =>
      `${p.dep}: ${p.from} → ${p.to} (${p.why})`,
    'cli.breaker.noChange': (p: { dep: string; action: BreakerControl }) =>
      `${p.dep}: no change (${p.action} recorded)`,
    'cli.breaker.defaultReason': 'set from the command line',
    // `breakerbar restart`, `pause` and `resume`: the API's decision word, then why.
    'cli.watchdog.answer': (p: { decision: string; why: string }) => `${p.decision}: ${p.why}`,
    'cli.watchdog.restartPending': 'restart pending: OpenClaw restarts once its active work has drained',
    'cli.watchdog.restartEnded': (
      p: { result: string | null; recoveryMs: number | null; detail: string | null },
      f: Formatters,
    ) =>
      `restart ${p.result ?? 'finished'}${p.recoveryMs === null ? '' : ` in ${f.duration(p.recoveryMs)}`}${
        p.detail ? `: ${p.detail}` : ''
      }`,
  },
  {
    'cli.status.version': (p: { version: string }) => `BreakerBar ${p.version}`,
    'cli.status.label.gateway': '网关',
    'cli.status.label.watchdog': '看门狗',
    'cli.status.gateway.notProbed': '尚未探测',
    'cli.status.gateway.up': '正常',
    'cli.status.gateway.upFor': (p: { ms: number }, f: Formatters) => `，已运行 ${f.duration(p.ms)}`,
    'cli.status.gateway.downSince': (p: { since: number; now: number }, f: Formatters) =>
      `，始于${f.relative(p.since, p.now)}`,
    'cli.status.gateway.probe': (p: { detail: string; ts: number; now: number }, f: Formatters) =>
      `（${p.detail}，${f.relative(p.ts, p.now)}）`,
    'cli.status.watchdog.disabled': '已关闭（仅监视）',
    'cli.status.watchdog.pausedUntil': (p: { until: number; now: number }, f: Formatters) =>
      `暂停至 ${moment(p.until, p.now, f)}`,
    'cli.status.watchdog.pausedUntilResumed': '已暂停，直到手动恢复',
    'cli.status.watchdog.dryRun': '演练模式（只做决定，从不重启）',
    'cli.status.watchdog.active': '运行中',
    'cli.status.watchdog.counters': (p: {
      mode: string;
      checks: number;
      threshold: number;
      failures: number;
      failuresMax: number;
      left: number;
      max: number;
      stormRestart: boolean;
    }) =>
      `${p.mode}；429 检查 ${p.stormRestart ? `${p.checks}/${p.threshold}` : `${p.checks}（风暴只等待，不重启）`}，探测失败 ${p.failures}/${p.failuresMax}，本小时重启额度 ${p.left}/${p.max}`,
    'cli.status.watchdog.restartRunning': (p: { trigger: Trigger; since: number; now: number }, f: Formatters) =>
      `${f.relative(p.since, p.now)}起正在重启（${ZH_TRIGGER[p.trigger] ?? p.trigger}）`,
    'cli.status.watchdog.restartPending': (p: { since: number; now: number }, f: Formatters) =>
      `${f.relative(p.since, p.now)}起重启已排期：OpenClaw 会在手头工作完成后重启`,
    'cli.status.watchdog.restartedItself': (p: { since: number; now: number }, f: Formatters) =>
      `网关${f.relative(p.since, p.now)}自行重启：等待其启动完成`,
    'cli.status.watchdog.verifying': (p: { since: number; now: number }, f: Formatters) =>
      `${f.relative(p.since, p.now)}起确认恢复中：等待 /startupz 报告启动完成`,
    'cli.status.watchdog.storm': (p: { since: number; now: number }, f: Formatters) =>
      `429 风暴始于${f.relative(p.since, p.now)}`,
    'cli.status.watchdog.held': (
      p: { stormSince: number | null; dep: string; until: number; now: number; cause: 'cooldown' | 'retry_after' },
      f: Formatters,
    ) =>
      `429 风暴${p.stormSince === null ? '' : `始于${f.relative(p.stormSince, p.now)}`}：${p.dep} 的重启暂缓至 ${moment(p.until, p.now, f)}（${p.cause === 'cooldown' ? 'OpenClaw 冷却' : 'Retry-After'}）`,
    'cli.status.watchdog.neverHealthy': '不会自动重启：BreakerBar 启动以来尚未见到网关健康',
    'cli.status.watchdog.notRunnable': (p: { problem: string | null }) =>
      `不会自动重启：${p.problem ?? '重启方式无法运行'}`,
    'cli.status.watchdog.diverging': '警报：健康探测正常，但有熔断器一直断开',
    'cli.status.lastRestart': (
      p: { ts: number; now: number; trigger: Trigger; reason: string; result: string; recoveryMs: number | null },
      f: Formatters,
    ) =>
      `上次重启 ${f.relative(p.ts, p.now)}（${ZH_TRIGGER[p.trigger] ?? p.trigger}：${p.reason}）：${ZH_RESULT[p.result] ?? p.result}${
        p.recoveryMs === null ? '' : `，${f.duration(p.recoveryMs)}后恢复`
      }`,
    'cli.status.restartsVia': (p: { description: string | null; problem: string | null }) =>
      `重启方式：${p.description ?? `无（${p.problem}）`}`,
    'cli.status.owner': (p: OwnerWords) => `网关归属：${zhOwner(p)}`,
    'cli.status.watchdog.ownerBlocked': (p: {
      rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled';
    }): string =>
      p.rule === 'stopped_itself'
        ? '不会自动重启：OpenClaw 已自行停止（数据库结构比网关新，退出码 78）；请升级 OpenClaw'
        : p.rule === 'external_supervisor'
          ? '不会自动重启：由外部守护进程负责重启网关（如需经由它重启，请设置 watchdog.restartCommand）'
          : '不会自动重启：OpenClaw 应用自带的网关没有可用来重启它的命令行工具或 LaunchAgent',
    'cli.status.noDependencies': '尚未见到任何依赖。',
    'cli.status.nothingRead': (p: { places: string[] }) =>
      `尚未从 OpenClaw 读取到任何内容：${p.places.length > 0 ? p.places.join('、') : '所有数据源'}中没有模型调用。OpenClaw 是否安装在本机，或其状态目录在别处（请设置 openclawDir）？\`breakerbar doctor\` 会说明它找到了什么。`,
    'cli.status.col.dependency': '依赖',
    'cli.status.col.state': '状态',
    'cli.status.col.calls': '调用',
    'cli.status.col.failed': '失败率',
    'cli.status.col.until': '到期',
    'cli.status.col.cooldown': 'OpenClaw 冷却',
    'cli.status.breaker.state': (p: { state: string; forced: boolean }) =>
      `${ZH_STATE[p.state] ?? p.state}${p.forced ? '（强制）' : ''}`,
    'cli.status.breaker.until': (p: { until: number; now: number }, f: Formatters) =>
      `${f.duration(p.until - p.now)}后`,
    'cli.status.breaker.cooldown': (p: { leftMs: number; why: string }, f: Formatters) =>
      `剩余 ${f.duration(p.leftMs)}（${p.why}）`,
    'cli.status.cooldown': (
      p: { kind: string; dep: string; leftMs: number; why: string | null; profile: string; errors: number | null },
      f: Formatters,
    ) =>
      `OpenClaw ${ZH_KIND[p.kind] ?? p.kind} ${p.dep}：剩余 ${f.duration(p.leftMs)}（${p.why ?? '未记录原因'}），配置档 ${p.profile}${
        p.errors !== null && p.errors > 0 ? `，${f.integer(p.errors)} 次错误` : ''
      }`,
    'cli.status.cooldownUnread': (p: { path: string; error: string }) =>
      `未能完整读取 OpenClaw 冷却状态 ${p.path}：${p.error}`,
    'cli.status.notifications': (p: { channels: string[] }) => `通知渠道：${p.channels.join('，')}`,

    'cli.doctor.heading': (p: { area: DoctorArea }) => ZH_AREA[p.area],
    'cli.doctor.fix': (p: { fix: string }) => `修复：${p.fix}`,
    'cli.doctor.summary': (p: { error: number; warn: number; ok: number }, f: Formatters) => {
      if (p.error === 0 && p.warn === 0) return `未发现问题（${f.integer(p.ok)} 项正常）。`;
      const parts: string[] = [];
      if (p.error > 0) parts.push(`${f.integer(p.error)} 个问题`);
      if (p.warn > 0) parts.push(`${f.integer(p.warn)} 个警告`);
      return `${parts.join('，')}。`;
    },
    'cli.maintenance.none': '没有维护窗口，也不在免打扰时段：通知和自动重启照常',
    'cli.maintenance.quietHours': (p: { until: number | null; now: number; reason: string }, f) =>
      `免打扰时段，${p.until === null ? '直到手动结束' : `至${f.relative(p.until, p.now)}`}（${p.reason}）：只发送严重通知`,
    'cli.maintenance.window': (p: { until: number | null; now: number; reason: string; manual: boolean }, f) =>
      `维护中，${p.until === null ? '直到手动结束' : `至${f.relative(p.until, p.now)}`}，${p.manual ? '手动开始' : '定期窗口'}（${p.reason}）：不发通知，不自动重启`,
    'cli.maintenance.noneStopped': '没有手动开始的维护窗口',
    'cli.breaker.transition': (p: { dep: string; from: string; to: string; why: string }) =>
      `${p.dep}：${ZH_STATE[p.from] ?? p.from} → ${ZH_STATE[p.to] ?? p.to}（${p.why}）`,
    'cli.breaker.noChange': (p: { dep: string; action: BreakerControl }) =>
      `${p.dep}：没有变化（已记录：${ZH_CONTROL[p.action]}）`,
    'cli.breaker.defaultReason': '在命令行中设置',
    'cli.watchdog.answer': (p: { decision: string; why: string }) => `${ZH_ANSWER[p.decision] ?? p.decision}：${p.why}`,
    'cli.watchdog.restartPending': '重启已排期：OpenClaw 会在手头工作完成后重启',
    'cli.watchdog.restartEnded': (
      p: { result: string | null; recoveryMs: number | null; detail: string | null },
      f: Formatters,
    ) =>
      `重启${p.result === null ? '结束' : (ZH_RESULT[p.result] ?? p.result)}${
        p.recoveryMs === null ? '' : `，用时 ${f.duration(p.recoveryMs)}`
      }${p.detail ? `：${p.detail}` : ''}`,
  },
);
