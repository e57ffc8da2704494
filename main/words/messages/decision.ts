/**
 * Why the watchdog decided what it did (main/words/decision-reasons.ts), as the dashboard words a stored
 * decision. Dependency names, the user's own notes and the gateway owner's evidence are facts shown as they
 * are; a quoted probe arrives already worded (`probe`).
 */
import type { Formatters as F } from '../i18n.js';
import { area } from './area.js';

type Stalled = { sessions: number; deps: string[]; quietMs: number };
type Streak = { probe: string; count: number; needed: number; forMs: number; afterMs: number; disabled: boolean };
type Held = { dep: string; by: 'retry_after' | 'cooldown'; leftMs: number; count: number; threshold: number };
type Due = { dep: string; agoMs: number; count: number; threshold: number };
type Upstream = 'held_longest' | 'over' | 'none';
type Storm = { deps: string[]; forMs: number; upstream: Upstream; heldMs: number };
type Deferred = { deps: string[]; dep: string; cause: 'retry_after' | 'cooldown'; askedMs: number; heldMs: number };
type Blocked =
  | { cause: 'never_healthy'; problem: string | null }
  | { cause: 'unchecked' }
  | { cause: 'not_runnable'; problem: string | null }
  | { cause: 'owner'; rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled'; who: string; said: string };
type Then = { said: string; stands: 'counted' | 'running' | 'waiting' };

const enDeps = (deps: string[], f: F) => (deps.length > 0 ? f.list(deps) : 'no dependency named');
const enStalled = (p: Stalled, f: F) =>
  `${f.plural(p.sessions, { one: '# session', other: '# sessions' })} stalled (${enDeps(p.deps, f)}) and no upstream attempt for ${f.duration(p.quietMs)}`;
const zhStalled = (p: Stalled, f: F) =>
  `${f.integer(p.sessions)} 个会话停滞（${p.deps.length > 0 ? f.list(p.deps) : '未指明依赖'}），且 ${f.duration(p.quietMs)} 内没有上游调用`;
const zhBusy = (state: string) => (state === 'starting' ? '正在启动' : state === 'draining' ? '正在收尾' : state);

export const decision = area(
  {
    'decision.notOpenClaw': (p: { probe: string }) =>
      `The gateway address answers, but not as an OpenClaw gateway (${p.probe}); check gatewayUrl. Nothing is restarted for it`,
    'decision.deadStreak': (p: Streak, f: F) =>
      `${p.probe} (dead probe ${f.integer(p.count)}${p.count <= p.needed ? ` of ${f.integer(p.needed)}` : ` (${f.integer(p.needed)} needed)`}, for ${f.duration(p.forMs)} of ${f.duration(p.afterMs)})${p.disabled ? '; watchdog disabled' : ''}`,
    'decision.dead': (p: { probe: string; forMs: number }, f: F) =>
      `Gateway dead for ${f.duration(p.forMs)}: ${p.probe}`,
    'decision.unloaded': (p: { probe: string; parked: boolean }) =>
      `Gateway dead (${p.probe}) and its service is ${p.parked ? 'parked: the service manager stopped respawning it' : 'not loaded'}`,
    'decision.stalled': (p: Stalled & { hungAfterMs: number }, f: F) =>
      `${enStalled(p, f)} (hung after ${f.duration(p.hungAfterMs)})`,
    'decision.stalledDisabled': (p: Stalled, f: F) => `${enStalled(p, f)}; watchdog disabled`,
    'decision.hung': (p: Stalled, f: F) => `Gateway hung: it answers its probes, but ${enStalled(p, f)}`,
    'decision.divergence': (p: { stuck: Array<{ dep: string; state: string; forMs: number }> }, f: F) =>
      `Health probes are green while ${f.list(p.stuck.map((b) => `${b.dep} has been ${b.state} for ${f.duration(b.forMs)}`))}: health checks alone are lying`,
    'decision.noStorm': 'No new rate-limited calls',
    'decision.noStormReset': 'No new rate-limited calls: count reset',
    'decision.stormDisabled': (p: { total: number }, f: F) =>
      `${f.plural(p.total, { one: '# new rate-limited call', other: '# new rate-limited calls' })}; watchdog disabled`,
    'decision.stormCounting': (
      p: { deps: Array<{ dep: string; count: number }>; check: number; threshold: number },
      f: F,
    ) =>
      `${f.plural(
        p.deps.reduce((sum, d) => sum + d.count, 0),
        { one: '# new rate-limited call', other: '# new rate-limited calls' },
      )} (${p.deps.map((d) => `${d.dep} ${f.integer(d.count)}`).join(', ')}), check ${f.integer(p.check)} of ${f.integer(p.threshold)}`,
    'decision.stormHeld': (p: Held, f: F) =>
      `No new rate-limited calls while ${p.dep} waits out ${p.by === 'retry_after' ? 'its Retry-After' : "OpenClaw's cooldown"} (${f.duration(p.leftMs)} left): count held at ${f.integer(p.count)} of ${f.integer(p.threshold)}`,
    'decision.retryDue': (p: Due, f: F) =>
      `No new rate-limited calls yet, but the retry of ${p.dep} is due (its Retry-After ended ${f.duration(p.agoMs)} ago): ${p.count >= p.threshold ? 'the storm stays judged' : `count held at ${f.integer(p.count)} of ${f.integer(p.threshold)}`}`,
    'decision.fallbacks': (p: { deps: Array<{ dep: string; fallbacks: string[] }> }, f: F) =>
      `Rate limited, but fallbacks are answering (${p.deps.map((d) => `${d.dep} → ${f.list(d.fallbacks)}`).join('; ')}); not restarting`,
    'decision.stormWaited': (p: { deps: string[]; forMs: number }, f: F) =>
      `429 storm on ${f.list(p.deps)} for ${f.duration(p.forMs)}, no fallback answering: waited out, not restarted (watchdog.stormRestart is off: OpenClaw retries its runs through a storm, and a restart cannot lift a provider's limit)`,
    'decision.storm': (p: Storm, f: F) =>
      `429 storm on ${f.list(p.deps)} for ${f.duration(p.forMs)}, ${
        p.upstream === 'held_longest'
          ? `held the longest allowed (${f.duration(p.heldMs)}) for Retry-After or cooldown`
          : p.upstream === 'over'
            ? 'Retry-After and cooldowns over'
            : 'no Retry-After or cooldown in force'
      }, no fallback answering: restarting`,
    'decision.deferred': (p: Deferred, f: F) =>
      `429 storm on ${f.list(p.deps)}: ${
        p.cause === 'retry_after'
          ? `${p.dep} asked to retry after ${f.duration(p.askedMs)}`
          : `OpenClaw holds ${p.dep} in cooldown for another ${f.duration(p.heldMs)}`
      }; restart held ${f.duration(p.heldMs)} (a restart cannot lift a provider's limit, and OpenClaw keeps its cooldowns across restarts)`,
    'decision.paused': (p: { forMs: number | null; another: boolean; note: string | null }, f: F) =>
      `Watchdog paused ${p.forMs === null ? 'until resumed' : `for ${p.another ? 'another ' : ''}${f.duration(p.forMs)}`}${p.note === null ? '' : ` (${p.note})`}`,
    'decision.pausedByUser': 'paused by the user',
    'decision.maintenance': (p: { note: string }) => `Maintenance window (${p.note}): no automatic restart`,
    'decision.inFlight': (p: { trigger: string; sinceMs: number | null }, f: F) =>
      `A ${p.trigger} restart is already running${p.sinceMs === null ? '' : ` (since ${f.duration(p.sinceMs)})`}`,
    'decision.trigger.manual': 'manual',
    'decision.trigger.health': 'health',
    'decision.trigger.storm': 'storm',
    'decision.pending': (p: { agoMs: number; manual: boolean }, f: F) =>
      p.manual
        ? `The gateway has a restart pending since ${f.duration(p.agoMs)} ago (OpenClaw is draining work first)`
        : `OpenClaw accepted a restart ${f.duration(p.agoMs)} ago and will do it once work has drained; not issuing another`,
    'decision.busy': (p: { state: string }) => `The gateway reports ${p.state}; never restarted while it is`,
    'decision.recovering': (p: { self: boolean; agoMs: number; graceMs: number }, f: F) =>
      `${p.self ? 'The gateway restarted itself' : 'Restarted'} ${f.duration(p.agoMs)} ago; waiting for started (grace ${f.duration(p.graceMs)})`,
    'decision.budget': (p: { restarts: number; max: number; nextInMs: number }, f: F) =>
      `Restart budget spent: ${f.plural(p.restarts, { one: '# restart', other: '# restarts' })} in the last hour (max ${f.integer(p.max)}); next in ${f.duration(p.nextInMs)} or when you act`,
    'decision.spacing': (p: { sinceMs: number; nth: number; spacingMs: number }, f: F) =>
      `Last restart ${f.duration(p.sinceMs)} ago; restart ${f.integer(p.nth)} this hour waits ${f.duration(p.spacingMs)} after it`,
    'decision.blocked': (p: Blocked) => {
      switch (p.cause) {
        case 'owner':
          return `Not restarting: ${p.said}`;
        case 'never_healthy':
          return `Not restarting: BreakerBar has not seen this gateway healthy since it started, so its failures may be BreakerBar's own wrong address or a gateway that was never installed${p.problem ? `; and ${p.problem}` : ''}. Run \`breakerbar doctor\``;
        case 'unchecked':
          return 'Not restarting: the restart strategy has not been checked yet';
        case 'not_runnable':
          return `Not restarting: ${p.problem ?? 'no way to restart the gateway here'}`;
      }
    },
    'decision.dryRun': (p: { order: string }) => `Dry run: would restart (${p.order})`,
    'decision.pauseEnded': 'Pause ended; watchdog active again',
    'decision.budgetRefilled': 'Restart budget refilled',
    'decision.resumed': 'Watchdog resumed; restart budget reset',
    'decision.recovered': (p: { self: boolean; afterMs: number }, f: F) =>
      `Gateway started and answers its probes ${f.duration(p.afterMs)} after ${p.self ? 'its own restart' : 'the restart'}`,
    'decision.notRecovered': (p: { how: 'own' | 'pending' | 'restart'; graceMs: number }, f: F) =>
      p.how === 'own'
        ? `The gateway's own restart did not finish within ${f.duration(p.graceMs)}`
        : p.how === 'pending'
          ? `OpenClaw accepted the restart but had not done it ${f.duration(p.graceMs)} later`
          : `The gateway did not report started within ${f.duration(p.graceMs)} of the restart`,
    'decision.restartedItself': (p: { uptimeMs: number }, f: F) =>
      `The gateway restarted by itself ${f.duration(p.uptimeMs)} ago (its uptime went back); not counted as an outage`,
    'decision.gatewayLogRestarting': 'The gateway log says it is restarting itself (SIGUSR2)',
    'decision.gatewayRestarting': (p: Then) =>
      `${p.said}; ${p.stands === 'counted' ? 'counted toward the restart in progress' : p.stands === 'running' ? 'the restart command is still running' : 'waiting for it to start'}`,
    'decision.manualDefault': 'Restart requested by the user',
  },
  {
    'decision.notOpenClaw': (p: { probe: string }) =>
      `网关地址有应答，但不是 OpenClaw 网关（${p.probe}）；请检查 gatewayUrl。不会因此重启任何东西`,
    'decision.deadStreak': (p: Streak, f: F) =>
      `${p.probe}（第 ${f.integer(p.count)} 次宕机探测${p.count <= p.needed ? `，共需 ${f.integer(p.needed)} 次` : `，需 ${f.integer(p.needed)} 次`}；已持续 ${f.duration(p.forMs)}，需 ${f.duration(p.afterMs)}）${p.disabled ? '；看门狗已停用' : ''}`,
    'decision.dead': (p: { probe: string; forMs: number }, f: F) => `网关已宕机 ${f.duration(p.forMs)}：${p.probe}`,
    'decision.unloaded': (p: { probe: string; parked: boolean }) =>
      `网关已宕机（${p.probe}），且其服务${p.parked ? '已被搁置：服务管理器不再拉起它' : '未加载'}`,
    'decision.stalled': (p: Stalled & { hungAfterMs: number }, f: F) =>
      `${zhStalled(p, f)}（${f.duration(p.hungAfterMs)}后判定为卡死）`,
    'decision.stalledDisabled': (p: Stalled, f: F) => `${zhStalled(p, f)}；看门狗已停用`,
    'decision.hung': (p: Stalled, f: F) => `网关卡死：它能应答探测，但${zhStalled(p, f)}`,
    'decision.divergence': (p: { stuck: Array<{ dep: string; state: string; forMs: number }> }, f: F) =>
      `健康探测正常，但${f.list(p.stuck.map((b) => `${b.dep} 已${b.state} ${f.duration(b.forMs)}`))}：只看健康检查并不可靠`,
    'decision.noStorm': '没有新的限流调用',
    'decision.noStormReset': '没有新的限流调用：计数清零',
    'decision.stormDisabled': (p: { total: number }, f: F) => `${f.integer(p.total)} 次新的限流调用；看门狗已停用`,
    'decision.stormCounting': (
      p: { deps: Array<{ dep: string; count: number }>; check: number; threshold: number },
      f: F,
    ) =>
      `${f.integer(p.deps.reduce((sum, d) => sum + d.count, 0))} 次新的限流调用（${p.deps.map((d) => `${d.dep} ${f.integer(d.count)}`).join('，')}），第 ${f.integer(p.check)} 次检查，共需 ${f.integer(p.threshold)} 次`,
    'decision.stormHeld': (p: Held, f: F) =>
      `${p.dep} 正在等待${p.by === 'retry_after' ? '其 Retry-After' : ' OpenClaw 的冷却'}结束（还剩 ${f.duration(p.leftMs)}），期间没有新的限流调用：计数保持在 ${f.integer(p.count)}/${f.integer(p.threshold)}`,
    'decision.retryDue': (p: Due, f: F) =>
      `暂无新的限流调用，但 ${p.dep} 的重试已到期（其 Retry-After 已于 ${f.duration(p.agoMs)}前结束）：${p.count >= p.threshold ? '风暴的判定保持不变' : `计数保持在 ${f.integer(p.count)}/${f.integer(p.threshold)}`}`,
    'decision.fallbacks': (p: { deps: Array<{ dep: string; fallbacks: string[] }> }, f: F) =>
      `遭遇限流，但备用模型在应答（${p.deps.map((d) => `${d.dep} → ${f.list(d.fallbacks)}`).join('；')}）；不重启`,
    'decision.stormWaited': (p: { deps: string[]; forMs: number }, f: F) =>
      `${f.list(p.deps)} 的 429 风暴已持续 ${f.duration(p.forMs)}，没有备用模型应答：已等它过去，未重启（watchdog.stormRestart 已关闭：OpenClaw 会在风暴中重试它的运行，而重启无法解除服务商的限制）`,
    'decision.storm': (p: Storm, f: F) =>
      `${f.list(p.deps)} 的 429 风暴已持续 ${f.duration(p.forMs)}，${
        p.upstream === 'held_longest'
          ? `已为 Retry-After 或冷却等待了允许的最长时间（${f.duration(p.heldMs)}）`
          : p.upstream === 'over'
            ? 'Retry-After 与冷却均已结束'
            : '没有生效的 Retry-After 或冷却'
      }，也没有备用模型应答：正在重启`,
    'decision.deferred': (p: Deferred, f: F) =>
      `${f.list(p.deps)} 遭遇 429 风暴：${
        p.cause === 'retry_after'
          ? `${p.dep} 要求 ${f.duration(p.askedMs)} 后重试`
          : `OpenClaw 还会冷却 ${p.dep} ${f.duration(p.heldMs)}`
      }；重启暂缓 ${f.duration(p.heldMs)}（重启无法解除服务商的限制，OpenClaw 也会在重启后保留冷却状态）`,
    'decision.paused': (p: { forMs: number | null; another: boolean; note: string | null }, f: F) =>
      `看门狗已暂停${p.forMs === null ? '，直到恢复' : `${p.another ? '，还剩' : ' '}${f.duration(p.forMs)}`}${p.note === null ? '' : `（${p.note}）`}`,
    'decision.pausedByUser': '由用户暂停',
    'decision.maintenance': (p: { note: string }) => `维护时段（${p.note}）：不自动重启`,
    'decision.inFlight': (p: { trigger: string; sinceMs: number | null }, f: F) =>
      `已有一次${p.trigger}重启正在进行${p.sinceMs === null ? '' : `（已进行 ${f.duration(p.sinceMs)}）`}`,
    'decision.trigger.manual': '手动',
    'decision.trigger.health': '健康检查触发的',
    'decision.trigger.storm': '风暴触发的',
    'decision.pending': (p: { agoMs: number; manual: boolean }, f: F) =>
      p.manual
        ? `网关自 ${f.duration(p.agoMs)}前起有一次待执行的重启（OpenClaw 正在先处理完手头的工作）`
        : `OpenClaw 已于 ${f.duration(p.agoMs)}前接受重启，会在工作处理完后执行；不再发起新的重启`,
    'decision.busy': (p: { state: string }) => `网关报告${zhBusy(p.state)}；此时从不重启`,
    'decision.recovering': (p: { self: boolean; agoMs: number; graceMs: number }, f: F) =>
      `${p.self ? '网关' : ''}${f.duration(p.agoMs)}前${p.self ? '自行重启' : '已重启'}；等待其启动完成（宽限 ${f.duration(p.graceMs)}）`,
    'decision.budget': (p: { restarts: number; max: number; nextInMs: number }, f: F) =>
      `重启额度已用完：过去一小时已重启 ${f.integer(p.restarts)} 次（上限 ${f.integer(p.max)} 次）；下一次在 ${f.duration(p.nextInMs)}后，或由你手动处理`,
    'decision.spacing': (p: { sinceMs: number; nth: number; spacingMs: number }, f: F) =>
      `上次重启在 ${f.duration(p.sinceMs)}前；本小时第 ${f.integer(p.nth)} 次重启需在其后等待 ${f.duration(p.spacingMs)}`,
    'decision.blocked': (p: Blocked) => {
      switch (p.cause) {
        case 'owner':
          switch (p.rule) {
            case 'stopped_itself':
              return `不重启：OpenClaw 已自行停止（${p.who}），BreakerBar 不会重启被它有意停下的网关`;
            case 'external_supervisor':
              return `不重启：网关由外部守护进程管理（${p.who}），由它负责重启`;
            case 'app_bundled':
              return `不重启：这是 OpenClaw 应用自带的网关（${p.who}），没有可用来重启它的方式`;
          }
          return `不重启：${p.said}`;
        case 'never_healthy':
          return `不重启：BreakerBar 启动以来从未见到这个网关健康，失败可能源于 BreakerBar 配置了错误的地址，或网关从未安装${p.problem ? `；另外：${p.problem}` : ''}。请运行 \`breakerbar doctor\``;
        case 'unchecked':
          return '不重启：尚未检查重启方式';
        case 'not_runnable':
          return `不重启：${p.problem ?? '这里没有可用的重启方式'}`;
      }
    },
    'decision.dryRun': (p: { order: string }) => `演练模式：本会重启（${p.order}）`,
    'decision.pauseEnded': '暂停结束；看门狗已恢复工作',
    'decision.budgetRefilled': '重启额度已恢复',
    'decision.resumed': '看门狗已恢复；重启额度已重置',
    'decision.recovered': (p: { self: boolean; afterMs: number }, f: F) =>
      `网关在${p.self ? '自行重启' : '重启'}后 ${f.duration(p.afterMs)} 完成启动并通过探测`,
    'decision.notRecovered': (p: { how: 'own' | 'pending' | 'restart'; graceMs: number }, f: F) =>
      p.how === 'own'
        ? `网关的自行重启未在 ${f.duration(p.graceMs)} 内完成`
        : p.how === 'pending'
          ? `OpenClaw 已接受重启，但 ${f.duration(p.graceMs)} 后仍未执行`
          : `重启后 ${f.duration(p.graceMs)} 内网关未报告启动完成`,
    'decision.restartedItself': (p: { uptimeMs: number }, f: F) =>
      `网关已于 ${f.duration(p.uptimeMs)}前自行重启（其运行时长归零）；不计为故障`,
    'decision.gatewayLogRestarting': '网关日志显示它正在自行重启（SIGUSR2）',
    'decision.gatewayRestarting': (p: Then) =>
      `${p.said}；${p.stands === 'counted' ? '计入正在进行的重启' : p.stands === 'running' ? '重启命令仍在运行' : '等待其启动'}`,
    'decision.manualDefault': '用户请求重启',
  },
);
