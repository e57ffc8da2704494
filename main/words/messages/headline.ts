/** The headline: what is wrong, what BreakerBar is doing about it, until when (see ../headline.ts). */
import { moment as at } from '../i18n.js';
import { area } from './area.js';

type OwnerRule = 'stopped_itself' | 'external_supervisor' | 'app_bundled';

export const headline = area(
  {
    // What is wrong.
    'headline.gatewayDown': (p: { since: number | null; now: number }, f) =>
      p.since === null ? 'Gateway down' : `Gateway down since ${at(p.since, p.now, f)}`,
    'headline.gatewayUnloaded': 'Gateway service unloaded: nothing runs it',
    'headline.gatewayHung': (p: { sessions: number; since: number; now: number }, f) =>
      `${f.plural(p.sessions, { one: '# session', other: '# sessions' })} stuck since ${at(p.since, p.now, f)}, no upstream call`,
    'headline.gatewayStarting': (p: { state: string }) => `Gateway ${p.state}`,
    'headline.gatewayAnswers': (p: { answer: string }) => `Gateway answers ${p.answer}`,
    'headline.notOpenClaw': 'Something other than OpenClaw answers at the gateway address',
    'headline.storm': (p: { deps: string[]; since: number; now: number }, f) =>
      `429 storm on ${f.list(p.deps)} since ${at(p.since, p.now, f)}`,
    'headline.quotaExhausted': (p: { provider: string; window: string; until: number | null; now: number }, f) =>
      p.until === null
        ? `${p.provider} quota exhausted (${p.window} window)`
        : `${p.provider} quota exhausted until ${at(p.until, p.now, f)} (${p.window} window)`,
    'headline.failing': (p: { deps: string[]; since: number; now: number }, f) =>
      `${f.list(p.deps)} failing since ${at(p.since, p.now, f)}`,
    'headline.recovering': (p: { deps: string[] }, f) => `${f.list(p.deps)} recovering: trial calls`,
    'headline.cooldown': (p: { deps: string[]; until: number; now: number; reason: string | null }, f) =>
      `OpenClaw holds ${f.list(p.deps)} in cooldown until ${at(p.until, p.now, f)}${p.reason ? ` (${p.reason})` : ''}`,
    'headline.budgetSpent': (p: { max: number }, f) =>
      `Restart budget spent (${f.plural(p.max, { one: '# restart', other: '# restarts' })} per hour)`,
    'headline.sourceError': (p: { source: string; error: string }) => `Cannot read ${p.source}: ${p.error}`,
    'headline.storeLost': (p: { problem: 'deleted' | 'replaced' }) =>
      `BreakerBar's database was ${p.problem} while it ran: nothing new is kept until BreakerBar restarts`,
    'headline.storeFull': (p: { since: number; now: number }, f) =>
      `No room to store since ${at(p.since, p.now, f)}: free disk space; breakers and storm checks see nothing new until then`,
    'headline.incidentOpen': (p: { since: number; now: number }, f) => `Incident open since ${at(p.since, p.now, f)}`,
    'headline.firstRun': 'Waiting for the first call through the gateway',
    'headline.notProbed': 'Waiting for the first health probe',
    // What BreakerBar is doing about it.
    'headline.fallbackAnswering': (p: { deps: string[] }, f) => `fallback ${f.list(p.deps)} answering`,
    'headline.noFallback': 'no fallback answering',
    'headline.restarting': (p: { since: number; now: number }, f) =>
      `restarting the gateway since ${at(p.since, p.now, f)}`,
    'headline.restartPending': 'restart pending: OpenClaw drains its work first',
    'headline.gatewayRestartingItself': 'the gateway is restarting itself',
    'headline.verifyingRecovery': 'gateway restarted: waiting for it to start',
    'headline.deferredRetryAfter': (p: { until: number; now: number }, f) =>
      `restart deferred: Retry-After ends ${at(p.until, p.now, f)}`,
    'headline.deferredCooldown': (p: { until: number; now: number }, f) =>
      `restart deferred: OpenClaw's cooldown ends ${at(p.until, p.now, f)}`,
    'headline.stormCounting': (p: { left: number }, f) =>
      `restart after ${f.plural(p.left, { one: '# more check', other: '# more checks' })} of 429s`,
    'headline.stormWaited': 'waiting it out: OpenClaw retries, storm restarts are off',
    'headline.deadCounting': (p: { left: number }, f) =>
      `restart after ${f.plural(p.left, { one: '# more failed probe', other: '# more failed probes' })}`,
    'headline.paused': (p: { until: number | null; now: number }, f) =>
      p.until === null ? 'watchdog paused until resumed' : `watchdog paused until ${at(p.until, p.now, f)}`,
    'headline.dryRun': 'dry run: no restart',
    'headline.watchOnly': 'watch only: the watchdog is off',
    'headline.blockedNeverHealthy': 'no automatic restart: the gateway was never seen healthy',
    'headline.blocked': (p: { problem: string }) => `no automatic restart: ${p.problem}`,
    'headline.blockedByOwner': (p: { rule: OwnerRule; who: string }): string =>
      p.rule === 'stopped_itself'
        ? 'no automatic restart: OpenClaw stopped itself (its database schema is newer, exit 78); upgrade OpenClaw'
        : p.rule === 'external_supervisor'
          ? `no automatic restart: an external supervisor runs the gateway (${p.who})`
          : "no automatic restart: the OpenClaw app's bundled gateway runs and stops with the app",
    'headline.maintenance': (p: { until: number | null; now: number }, f) =>
      p.until === null
        ? 'maintenance: no alerts, no automatic restarts'
        : `maintenance until ${at(p.until, p.now, f)}: no alerts, no automatic restarts`,
    'headline.quietHours': (p: { until: number | null; now: number }, f) =>
      p.until === null ? 'quiet hours: no alerts' : `quiet hours until ${at(p.until, p.now, f)}: no alerts`,
    'headline.breakerWaits': (p: { until: number; now: number }, f) => `next trial ${at(p.until, p.now, f)}`,
    // All well.
    'headline.allWell': 'All well',
    'headline.answering': (p: { n: number }, f) =>
      f.plural(p.n, { one: '# dependency answering', other: '# dependencies answering' }),
    'headline.lastIncident': (p: { closedAt: number; now: number; lastedMs: number }, f) =>
      `last incident ended ${f.relative(p.closedAt, p.now)} (lasted ${f.duration(p.lastedMs)})`,
    'headline.noIncidents': 'no incidents yet',
  },
  {
    'headline.gatewayDown': (p: { since: number | null; now: number }, f) =>
      p.since === null ? '网关已宕机' : `网关自 ${at(p.since, p.now, f)} 起宕机`,
    'headline.gatewayUnloaded': '网关服务已卸载：没有进程在运行它',
    'headline.gatewayHung': (p: { sessions: number; since: number; now: number }, f) =>
      `${f.integer(p.sessions)} 个会话自 ${at(p.since, p.now, f)} 起卡住，没有上游调用`,
    'headline.gatewayStarting': (p: { state: string }) => `网关${p.state === 'draining' ? '正在排空' : '正在启动'}`,
    'headline.gatewayAnswers': (p: { answer: string }) => `网关返回 ${p.answer}`,
    'headline.notOpenClaw': '网关地址上应答的不是 OpenClaw',
    'headline.storm': (p: { deps: string[]; since: number; now: number }, f) =>
      `${f.list(p.deps)} 自 ${at(p.since, p.now, f)} 起遭遇 429 风暴`,
    'headline.quotaExhausted': (p: { provider: string; window: string; until: number | null; now: number }, f) =>
      p.until === null
        ? `${p.provider} 配额已用尽（${p.window} 窗口）`
        : `${p.provider} 配额已用尽，${at(p.until, p.now, f)} 重置（${p.window} 窗口）`,
    'headline.failing': (p: { deps: string[]; since: number; now: number }, f) =>
      `${f.list(p.deps)} 自 ${at(p.since, p.now, f)} 起调用失败`,
    'headline.recovering': (p: { deps: string[] }, f) => `${f.list(p.deps)} 正在恢复：试探调用中`,
    'headline.cooldown': (p: { deps: string[]; until: number; now: number; reason: string | null }, f) =>
      `OpenClaw 将 ${f.list(p.deps)} 冷却至 ${at(p.until, p.now, f)}${p.reason ? `（${p.reason}）` : ''}`,
    'headline.budgetSpent': (p: { max: number }, f) => `重启次数已用完（每小时 ${f.integer(p.max)} 次）`,
    'headline.sourceError': (p: { source: string; error: string }) => `无法读取 ${p.source}：${p.error}`,
    'headline.storeLost': (p: { problem: 'deleted' | 'replaced' }) =>
      `BreakerBar 运行期间其数据库被${p.problem === 'deleted' ? '删除' : '替换'}：重启 BreakerBar 之前不再保存新数据`,
    'headline.storeFull': (p: { since: number; now: number }, f) =>
      `自 ${at(p.since, p.now, f)} 起无空间存储：请释放磁盘空间；在此之前熔断器和风暴检查看不到新情况`,
    'headline.incidentOpen': (p: { since: number; now: number }, f) => `事件自 ${at(p.since, p.now, f)} 起未结束`,
    'headline.firstRun': '等待经过网关的第一次调用',
    'headline.notProbed': '等待第一次健康探测',
    'headline.fallbackAnswering': (p: { deps: string[] }, f) => `备用模型 ${f.list(p.deps)} 正在应答`,
    'headline.noFallback': '没有备用模型应答',
    'headline.restarting': (p: { since: number; now: number }, f) => `自 ${at(p.since, p.now, f)} 起正在重启网关`,
    'headline.restartPending': '重启已排期：OpenClaw 先完成手头的工作',
    'headline.gatewayRestartingItself': '网关正在自行重启',
    'headline.verifyingRecovery': '网关已重启：等待其启动完成',
    'headline.deferredRetryAfter': (p: { until: number; now: number }, f) =>
      `重启已推迟：Retry-After 于 ${at(p.until, p.now, f)} 结束`,
    'headline.deferredCooldown': (p: { until: number; now: number }, f) =>
      `重启已推迟：OpenClaw 冷却于 ${at(p.until, p.now, f)} 结束`,
    'headline.stormCounting': (p: { left: number }, f) => `再有 ${f.integer(p.left)} 次 429 检查即重启`,
    'headline.stormWaited': '等待风暴过去：OpenClaw 自行重试，风暴重启已关闭',
    'headline.deadCounting': (p: { left: number }, f) => `再有 ${f.integer(p.left)} 次探测失败即重启`,
    'headline.paused': (p: { until: number | null; now: number }, f) =>
      p.until === null ? '看门狗已暂停，直到手动恢复' : `看门狗暂停至 ${at(p.until, p.now, f)}`,
    'headline.dryRun': '演练模式：不会重启',
    'headline.watchOnly': '仅监视：看门狗已关闭',
    'headline.blockedNeverHealthy': '不会自动重启：从未见到网关健康',
    'headline.blocked': (p: { problem: string }) => `不会自动重启：${p.problem}`,
    'headline.blockedByOwner': (p: { rule: OwnerRule; who: string }): string =>
      p.rule === 'stopped_itself'
        ? '不会自动重启：OpenClaw 已自行停止（数据库结构较新，退出码 78）；请升级 OpenClaw'
        : p.rule === 'external_supervisor'
          ? `不会自动重启：网关由外部守护进程运行（${p.who}）`
          : '不会自动重启：OpenClaw 应用自带的网关随应用启动和停止',
    'headline.maintenance': (p: { until: number | null; now: number }, f) =>
      p.until === null ? '维护中：不告警，不自动重启' : `维护至 ${at(p.until, p.now, f)}：不告警，不自动重启`,
    'headline.quietHours': (p: { until: number | null; now: number }, f) =>
      p.until === null ? '免打扰时段：不告警' : `免打扰至 ${at(p.until, p.now, f)}：不告警`,
    'headline.breakerWaits': (p: { until: number; now: number }, f) => `下次试探 ${at(p.until, p.now, f)}`,
    'headline.allWell': '一切正常',
    'headline.answering': (p: { n: number }, f) => `${f.integer(p.n)} 个依赖正常应答`,
    'headline.lastIncident': (p: { closedAt: number; now: number; lastedMs: number }, f) =>
      `上次事件${f.relative(p.closedAt, p.now)}结束（持续 ${f.duration(p.lastedMs)}）`,
    'headline.noIncidents': '尚无事件',
  },
);
