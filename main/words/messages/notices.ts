/**
 * What BreakerBar tells a human through a notification or a webhook: the
 * watchdog's alerts and restarts, breaker transitions, token budgets,
 * OpenClaw's cooldown loops, the coalescer's summaries, and the chrome the
 * webhook formats put around a notice. The daemon words them in its language
 * (main/core/watchdog/watchdog-notices.ts); the facts come from the policy as data.
 */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';

type Trigger = 'storm' | 'health' | 'manual';
type Evidence = 'storm' | 'dead' | 'unloaded' | 'hung' | 'manual';
type BreakerState = 'closed' | 'half_open' | 'open' | 'throttled';
type Severity = 'info' | 'warning' | 'critical';
type CooldownKind = 'cooldown' | 'disabled' | 'blocked';

const EN_TRIGGER: Record<Trigger, string> = {
  storm: 'after a 429 storm',
  health: 'because it was dead or hung',
  manual: 'on request',
};
const ZH_TRIGGER: Record<Trigger, string> = {
  storm: '（因 429 风暴）',
  health: '（因网关宕机或卡死）',
  manual: '（应请求）',
};
const EN_EVIDENCE: Record<Evidence, string> = {
  storm: 'after a 429 storm',
  dead: 'because it stopped answering',
  unloaded: 'because its service was unloaded',
  hung: 'because it hangs: sessions stalled, no upstream call',
  manual: 'on request',
};
const ZH_EVIDENCE: Record<Evidence, string> = {
  storm: '：发生了 429 风暴',
  dead: '：它不再应答',
  unloaded: '：它的服务已被卸载',
  hung: '：它已卡死，会话停滞且没有上游调用',
  manual: '：应请求',
};
const ZH_STATE: Record<BreakerState, string> = { closed: '闭合', half_open: '半开', open: '断开', throttled: '限流' };
const ZH_SEVERITY: Record<Severity, string> = { info: '信息', warning: '警告', critical: '严重' };
const EN_KIND: Record<CooldownKind, string> = {
  cooldown: 'in cooldown',
  disabled: 'disabled',
  blocked: 'blocked by its subscription limit',
};
const ZH_KIND: Record<CooldownKind, string> = { cooldown: '冷却中', disabled: '已停用', blocked: '受订阅额度限制' };

/** What a human can do, by OpenClaw's failure reason. */
const EN_ADVICE: Record<string, string> = {
  billing: 'Check the provider account: credits, plan or payment method.',
  auth: 'Check the API key or sign-in of that profile.',
  auth_permanent: 'The key or account looks revoked: replace the credential.',
  rate_limit: 'The provider keeps rate-limiting it: lower the load, raise the quota, or move agents to another model.',
  overloaded: 'The provider keeps answering overloaded: move agents to another model for now.',
  model_not_found: 'The provider does not know this model: check the model id in openclaw.json.',
};
const ZH_ADVICE: Record<string, string> = {
  billing: '请检查服务商账户：余额、套餐或付款方式。',
  auth: '请检查该配置档的 API 密钥或登录状态。',
  auth_permanent: '密钥或账户似乎已被吊销：请更换凭据。',
  rate_limit: '服务商持续限流：请降低负载、提高配额，或把智能体切换到其他模型。',
  overloaded: '服务商持续返回过载：请暂时把智能体切换到其他模型。',
  model_not_found: '服务商不认识这个模型：请检查 openclaw.json 中的模型 ID。',
};

type StormUpstream = 'held_longest' | 'over' | 'none';
type Blocked =
  | { cause: 'not_openclaw'; detail: string }
  | { cause: 'never_healthy'; problem: string | null }
  | { cause: 'unchecked' }
  | { cause: 'not_runnable'; problem: string | null }
  | { cause: 'owner'; rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled'; who: string };

const enDeps = (deps: Array<{ dep: string; fallbacks: string[] }>) =>
  deps.map((d) => `${d.dep} → ${d.fallbacks.join(', ')}`).join('; ');

export const notices = area(
  {
    // Titles.
    'notices.restartDeferred.retryAfter.title': (p: { dep: string | null }) =>
      `Restart deferred: ${p.dep ?? 'upstream'} asked to retry later`,
    'notices.restartDeferred.cooldown.title': (p: { dep: string | null }) =>
      `Restart held: OpenClaw keeps ${p.dep ?? 'a provider'} in cooldown`,
    'notices.budgetExhausted.title': 'Restart budget spent: the watchdog stopped restarting',
    'notices.gatewayDown.title': 'OpenClaw gateway is down',
    'notices.gatewayUp.title': 'OpenClaw gateway is back',
    'notices.divergence.title': 'Health checks green, but a provider is down',
    'notices.fallbackAnswering.title': (p: { dep: string | null }) =>
      `${p.dep ?? 'A provider'} is rate limited; fallbacks are answering`,
    'notices.wouldRun.title': 'Dry run: the watchdog would restart the gateway',
    'notices.blocked.title': 'The watchdog will not restart the gateway',
    'notices.restartStarted.title': (p: { evidence: Evidence }) =>
      `Restarting the OpenClaw gateway ${EN_EVIDENCE[p.evidence]}`,
    'notices.restartFailed.title': (p: { trigger: Trigger }) => `Gateway restart ${EN_TRIGGER[p.trigger]} failed`,
    'notices.restartSucceeded.title': (p: { trigger: Trigger }) =>
      `Gateway recovered after a restart ${EN_TRIGGER[p.trigger]}`,
    'notices.breakerOpened.title': (p: { dep: string }) => `${p.dep} breaker opened`,
    'notices.breakerThrottled.title': (p: { dep: string }) => `${p.dep} is throttled by its provider`,
    'notices.breakerClosed.title': (p: { dep: string }) => `${p.dep} recovered`,
    'notices.tokenBudget.title': (p: { agent: string; dep: string }) => `Token budget crossed: ${p.agent} on ${p.dep}`,
    'notices.cooldownLoop.title': (p: { dep: string }) => `OpenClaw keeps ${p.dep} in cooldown`,
    'notices.storeFull.title': 'BreakerBar cannot store: the disk is full',
    'notices.storeRoom.title': 'BreakerBar stores again',
    'notices.cooldownLong.title': (p: { dep: string; kind: CooldownKind; lengthMs: number }, f: Formatters) =>
      `OpenClaw ${p.kind === 'disabled' ? 'disabled' : 'holds back'} ${p.dep} for ${f.duration(p.lengthMs)}`,

    // Bodies.
    'notices.gatewayDown.body': (p: { detail: string }) => `The gateway is down: ${p.detail}.`,
    'notices.gatewayUp.body': 'The gateway answers its health probes again.',
    'notices.storeFull.body': (p: { dbPath: string; error: string }) =>
      `${p.dbPath} cannot grow (${p.error}). Until space is freed on its disk, new calls are not stored, so breakers, storm checks and incidents see nothing new; health probes and gateway restarts go on. Nothing is lost: what the gateway writes meanwhile is read once there is room.`,
    'notices.storeRoom.body': (p: { fullForMs: number; refused: number }, f: Formatters) =>
      `There is room again after ${f.duration(p.fullForMs)} (${f.plural(p.refused, { one: '# write', other: '# writes' })} refused meanwhile); what the gateway wrote meanwhile is being stored now.`,
    'notices.fallbackAnswering.body': (p: { deps: Array<{ dep: string; fallbacks: string[] }> }) =>
      `Rate limited, fallbacks answering: ${enDeps(p.deps)}. No restart.`,
    'notices.divergence.body': (
      p: { stuck: Array<{ dep: string; state: BreakerState; forMs: number }> },
      f: Formatters,
    ) =>
      `Health probes are green while ${p.stuck
        .map((b) => `${b.dep} has been ${b.state.replace('_', '-')} for ${f.duration(b.forMs)}`)
        .join(', ')}: health checks alone are lying.`,
    'notices.budgetExhausted.body': (
      p: { restarts: number; max: number; nextInMs: number; trigger: 'storm' | 'health' },
      f: Formatters,
    ) =>
      `${f.plural(p.restarts, { one: '# restart', other: '# restarts' })} in the last hour (max ${f.integer(p.max)}); the next one in ${f.duration(p.nextInMs)} or when you act. The ${p.trigger === 'storm' ? '429 storm' : 'outage'} needs a human.`,
    'notices.blocked.body': (p: Blocked) => {
      switch (p.cause) {
        case 'not_openclaw':
          return `The gateway address answers, but not as an OpenClaw gateway (${p.detail}); check gatewayUrl. Nothing is restarted for it.`;
        case 'never_healthy':
          return `BreakerBar has not seen this gateway healthy since it started, so its failures may be BreakerBar's own wrong address or a gateway that was never installed${p.problem ? `; and ${p.problem}` : ''}. Run \`breakerbar doctor\`.`;
        case 'unchecked':
          return 'The restart strategy has not been checked yet.';
        case 'not_runnable':
          return `No way to restart the gateway here: ${p.problem ?? 'no restart strategy'}.`;
        case 'owner':
          switch (p.rule) {
            case 'stopped_itself':
              return `OpenClaw stopped itself: its database schema is newer than this gateway (exit 78). Upgrade OpenClaw; BreakerBar does not restart a gateway OpenClaw parked on purpose (${p.who}).`;
            case 'external_supervisor':
              return `The gateway runs under an external supervisor (${p.who}; OPENCLAW_SUPERVISOR_MODE=external), which restarts it. BreakerBar alerts instead; set watchdog.restartCommand to restart it through that supervisor.`;
            case 'app_bundled':
              return "The gateway is the OpenClaw app's bundled gateway: it runs while the app runs, with no CLI or LaunchAgent to restart it through. Reopen the OpenClaw app, install the gateway service (`openclaw gateway install`), or set watchdog.restartCommand.";
          }
      }
    },
    'notices.restartDeferred.body': (
      p: { deps: string[]; dep: string; cause: 'retry_after' | 'cooldown'; askedMs: number; heldMs: number },
      f: Formatters,
    ) =>
      `429 storm on ${f.list(p.deps)}: ${
        p.cause === 'retry_after'
          ? `${p.dep} asked to retry after ${f.duration(p.askedMs)}`
          : `OpenClaw holds ${p.dep} in cooldown for another ${f.duration(p.heldMs)}`
      }; restart held ${f.duration(p.heldMs)} (a restart cannot lift a provider's limit, and OpenClaw keeps its cooldowns across restarts).`,
    'notices.wouldRun.body': (p: { why: string }) => `Dry run: would restart the gateway: ${p.why}.`,
    'notices.restartStarted.body': (p: { why: string; command: string | null }) =>
      `${p.why}. Running: ${p.command ?? '(no restart strategy)'}.`,
    'notices.why.storm': (
      p: { deps: string[]; forMs: number; upstream: StormUpstream; heldMs: number },
      f: Formatters,
    ) =>
      `429 storm on ${f.list(p.deps)} for ${f.duration(p.forMs)}, ${
        p.upstream === 'held_longest'
          ? `held the longest allowed (${f.duration(p.heldMs)}) for Retry-After or cooldown`
          : p.upstream === 'over'
            ? 'Retry-After and cooldowns over'
            : 'no Retry-After or cooldown in force'
      }, no fallback answering`,
    'notices.why.dead': (p: { forMs: number; detail: string }, f: Formatters) =>
      `Gateway dead for ${f.duration(p.forMs)}: ${p.detail}`,
    'notices.why.unloaded': (p: { detail: string; parked: boolean }) =>
      `Gateway dead (${p.detail}) and its service is ${p.parked ? 'parked: the service manager stopped respawning it' : 'not loaded'}`,
    'notices.why.hung': (p: { sessions: number; deps: string[]; quietMs: number }, f: Formatters) =>
      `Gateway hung: it answers its probes, but ${f.plural(p.sessions, { one: '# session', other: '# sessions' })} stalled (${p.deps.length > 0 ? f.list(p.deps) : 'no dependency named'}) and no upstream attempt for ${f.duration(p.quietMs)}`,
    'notices.why.manual': (p: { reason: string | null }) => p.reason ?? 'Restart requested by the user',
    'notices.restartSucceeded.body': (p: { recoveryMs: number }, f: Formatters) =>
      `The gateway started and answers its probes ${f.duration(p.recoveryMs)} after the restart.`,
    'notices.notRecovered.body': (p: { graceMs: number; pending: boolean }, f: Formatters) =>
      `${
        p.pending
          ? `OpenClaw accepted the restart but had not done it ${f.duration(p.graceMs)} later`
          : `The gateway did not report started within ${f.duration(p.graceMs)} of the restart`
      }. Check the gateway's logs; run \`breakerbar doctor\`.`,
    'notices.restartFailed.body': (p: { message: string }) => p.message,
    'notices.breakerOpened.body': (p: { reason: string }) => `${p.reason}.`,
    'notices.breakerThrottled.body': (p: { reason: string }) => `${p.reason}.`,
    'notices.breakerClosed.body': (p: { reason: string }) => `Breaker closed: ${p.reason}.`,
    'notices.tokenBudget.body': (p: { tokens: number; budget: number | null }, f: Formatters) =>
      `${f.integer(p.tokens)} tokens in the last minute (budget ${p.budget === null ? '?' : f.integer(p.budget)}).`,
    'notices.cooldownLoop.body': (
      p: { profile: string; why: string | null; kind: CooldownKind; entries: number; spanMs: number; counts: number[] },
      f: Formatters,
    ) =>
      `Profile ${p.profile} went back into OpenClaw's ${p.why ?? 'no reason recorded'} ${p.kind} ${p.entries} times in ${f.duration(p.spanMs)}${
        p.counts.length > 1 ? ` (failure count ${p.counts.join(' → ')})` : ''
      }, with no successful call in between;`,
    'notices.cooldownLong.body': (p: { profile: string; why: string | null }) => `Profile ${p.profile} is`,
    'notices.cooldown.ends': (p: { kind: CooldownKind; until: number; leftMs: number }, f: Formatters) =>
      `${EN_KIND[p.kind]} until ${new Date(p.until).toISOString()} (${f.duration(p.leftMs)} from now)`,
    'notices.cooldown.loopTail': (p: { ends: string }) => `it is ${p.ends}.`,
    'notices.cooldown.longTail': (p: { ends: string; why: string | null }) =>
      `${p.ends}, for ${p.why ?? 'no reason recorded'}: OpenClaw will not use it before then.`,
    'notices.cooldown.restart': 'A gateway restart does not lift it: OpenClaw keeps this state on disk.',
    'notices.cooldown.advice': (p: { reason: string | null }) =>
      EN_ADVICE[p.reason ?? ''] ?? 'Check the provider account and key; `openclaw models status` lists it.',

    // The coalescer's summary and the webhook chrome.
    'notices.coalesced': (p: { body: string; count: number; spanMs: number }, f: Formatters) =>
      `${p.body} (+${f.integer(p.count)} more in the last ${f.duration(p.spanMs)}; this is the latest)`,
    'notices.webhook.severity': (p: { severity: Severity }) => `[${p.severity.toUpperCase()}]`,
    'notices.webhook.origin': (p: { dep: string | null }) => `BreakerBar · ${p.dep ?? 'gateway'}`,
  },
  {
    'notices.restartDeferred.retryAfter.title': (p: { dep: string | null }) =>
      `重启已推迟：${p.dep ?? '上游'}要求稍后重试`,
    'notices.restartDeferred.cooldown.title': (p: { dep: string | null }) =>
      `重启已暂缓：OpenClaw 正在冷却 ${p.dep ?? '某个服务商'}`,
    'notices.budgetExhausted.title': '重启次数已用完：看门狗停止自动重启',
    'notices.gatewayDown.title': 'OpenClaw 网关已宕机',
    'notices.gatewayUp.title': 'OpenClaw 网关已恢复',
    'notices.divergence.title': '健康检查正常，但有服务商不可用',
    'notices.fallbackAnswering.title': (p: { dep: string | null }) =>
      `${p.dep ?? '某个服务商'}被限流，备用模型正在应答`,
    'notices.wouldRun.title': '演练模式：看门狗本会重启网关',
    'notices.blocked.title': '看门狗不会重启网关',
    'notices.restartStarted.title': (p: { evidence: Evidence }) => `正在重启 OpenClaw 网关${ZH_EVIDENCE[p.evidence]}`,
    'notices.restartFailed.title': (p: { trigger: Trigger }) => `网关重启失败${ZH_TRIGGER[p.trigger]}`,
    'notices.restartSucceeded.title': (p: { trigger: Trigger }) => `网关重启后已恢复${ZH_TRIGGER[p.trigger]}`,
    'notices.breakerOpened.title': (p: { dep: string }) => `${p.dep} 熔断器已断开`,
    'notices.breakerThrottled.title': (p: { dep: string }) => `${p.dep} 被服务商限流`,
    'notices.breakerClosed.title': (p: { dep: string }) => `${p.dep} 已恢复`,
    'notices.tokenBudget.title': (p: { agent: string; dep: string }) => `超出 token 预算：${p.agent} 使用 ${p.dep}`,
    'notices.cooldownLoop.title': (p: { dep: string }) => `OpenClaw 反复冷却 ${p.dep}`,
    'notices.storeFull.title': 'BreakerBar 无法存储：磁盘已满',
    'notices.storeRoom.title': 'BreakerBar 恢复存储',
    'notices.cooldownLong.title': (p: { dep: string; kind: CooldownKind; lengthMs: number }, f: Formatters) =>
      `OpenClaw ${p.kind === 'disabled' ? '停用' : '暂停使用'} ${p.dep}，长达 ${f.duration(p.lengthMs)}`,

    'notices.gatewayDown.body': (p: { detail: string }) => `网关已宕机：${p.detail}。`,
    'notices.gatewayUp.body': '网关重新通过了健康探测。',
    'notices.storeFull.body': (p: { dbPath: string; error: string }) =>
      `${p.dbPath} 无法增长（${p.error}）。在其所在磁盘腾出空间之前，新的调用不会被存储，熔断器、风暴检查和事件都看不到新情况；健康探测和网关重启照常进行。不会丢失任何数据：网关在此期间写下的内容会在有空间后读取。`,
    'notices.storeRoom.body': (p: { fullForMs: number; refused: number }, f: Formatters) =>
      `${f.duration(p.fullForMs)} 后重新有了空间（期间拒绝了 ${f.integer(p.refused)} 次写入）；网关在此期间写下的内容正在存储。`,
    'notices.fallbackAnswering.body': (p: { deps: Array<{ dep: string; fallbacks: string[] }> }) =>
      `已被限流，备用模型正在应答：${enDeps(p.deps)}。不重启。`,
    'notices.divergence.body': (
      p: { stuck: Array<{ dep: string; state: BreakerState; forMs: number }> },
      f: Formatters,
    ) =>
      `健康探测一切正常，但 ${p.stuck
        .map((b) => `${b.dep} 已${ZH_STATE[b.state]} ${f.duration(b.forMs)}`)
        .join('，')}：仅看健康检查会被误导。`,
    'notices.budgetExhausted.body': (
      p: { restarts: number; max: number; nextInMs: number; trigger: 'storm' | 'health' },
      f: Formatters,
    ) =>
      `过去一小时已重启 ${f.integer(p.restarts)} 次（上限 ${f.integer(p.max)} 次）；下一次在 ${f.duration(p.nextInMs)} 后，或由你手动处理。这次${p.trigger === 'storm' ? ' 429 风暴' : '故障'}需要人工介入。`,
    'notices.blocked.body': (p: Blocked) => {
      switch (p.cause) {
        case 'not_openclaw':
          return `网关地址有应答，但不是 OpenClaw 网关（${p.detail}）；请检查 gatewayUrl。不会因此重启任何东西。`;
        case 'never_healthy':
          return `BreakerBar 启动以来从未见到这个网关健康，失败可能源于 BreakerBar 配置了错误的地址，或网关从未安装${p.problem ? `；另外：${p.problem}` : ''}。请运行 \`breakerbar doctor\`。`;
        case 'unchecked':
          return '尚未检查重启方式。';
        case 'not_runnable':
          return `这里无法重启网关：${p.problem ?? '没有可用的重启方式'}。`;
        case 'owner':
          switch (p.rule) {
            case 'stopped_itself':
              return `OpenClaw 已自行停止：它的数据库结构比这个网关新（退出码 78）。请升级 OpenClaw；BreakerBar 不会重启被 OpenClaw 有意停下的网关（${p.who}）。`;
            case 'external_supervisor':
              return `网关由外部守护进程管理（${p.who}；OPENCLAW_SUPERVISOR_MODE=external），由它负责重启。BreakerBar 只发出提醒；如需经由该守护进程重启，请设置 watchdog.restartCommand。`;
            case 'app_bundled':
              return '这是 OpenClaw 应用自带的网关：随应用运行，没有可用来重启它的命令行工具或 LaunchAgent。请重新打开 OpenClaw 应用、安装网关服务（`openclaw gateway install`），或设置 watchdog.restartCommand。';
          }
      }
    },
    'notices.restartDeferred.body': (
      p: { deps: string[]; dep: string; cause: 'retry_after' | 'cooldown'; askedMs: number; heldMs: number },
      f: Formatters,
    ) =>
      `${f.list(p.deps)} 遭遇 429 风暴：${
        p.cause === 'retry_after'
          ? `${p.dep} 要求 ${f.duration(p.askedMs)} 后重试`
          : `OpenClaw 还会冷却 ${p.dep} ${f.duration(p.heldMs)}`
      }；重启暂缓 ${f.duration(p.heldMs)}（重启无法解除服务商的限制，OpenClaw 也会在重启后保留冷却状态）。`,
    'notices.wouldRun.body': (p: { why: string }) => `演练模式：本会重启网关：${p.why}。`,
    'notices.restartStarted.body': (p: { why: string; command: string | null }) =>
      `${p.why}。执行：${p.command ?? '（没有重启方式）'}。`,
    'notices.why.storm': (
      p: { deps: string[]; forMs: number; upstream: StormUpstream; heldMs: number },
      f: Formatters,
    ) =>
      `${f.list(p.deps)} 的 429 风暴已持续 ${f.duration(p.forMs)}，${
        p.upstream === 'held_longest'
          ? `已为 Retry-After 或冷却等待了允许的最长时间（${f.duration(p.heldMs)}）`
          : p.upstream === 'over'
            ? 'Retry-After 与冷却均已结束'
            : '没有生效的 Retry-After 或冷却'
      }，也没有备用模型应答`,
    'notices.why.dead': (p: { forMs: number; detail: string }, f: Formatters) =>
      `网关已宕机 ${f.duration(p.forMs)}：${p.detail}`,
    'notices.why.unloaded': (p: { detail: string; parked: boolean }) =>
      `网关已宕机（${p.detail}），且其服务${p.parked ? '已被搁置：服务管理器不再拉起它' : '未加载'}`,
    'notices.why.hung': (p: { sessions: number; deps: string[]; quietMs: number }, f: Formatters) =>
      `网关卡死：它能应答探测，但 ${f.integer(p.sessions)} 个会话停滞（${p.deps.length > 0 ? f.list(p.deps) : '未指明依赖'}），且 ${f.duration(p.quietMs)} 内没有上游调用`,
    'notices.why.manual': (p: { reason: string | null }) => p.reason ?? '用户请求重启',
    'notices.restartSucceeded.body': (p: { recoveryMs: number }, f: Formatters) =>
      `网关在重启后 ${f.duration(p.recoveryMs)} 完成启动并通过探测。`,
    'notices.notRecovered.body': (p: { graceMs: number; pending: boolean }, f: Formatters) =>
      `${
        p.pending
          ? `OpenClaw 已接受重启，但 ${f.duration(p.graceMs)} 后仍未执行`
          : `重启后 ${f.duration(p.graceMs)} 内网关没有报告启动完成`
      }。请查看网关日志，并运行 \`breakerbar doctor\`。`,
    'notices.restartFailed.body': (p: { message: string }) => `重启命令失败：${p.message}`,
    'notices.breakerOpened.body': (p: { reason: string }) => `原因：${p.reason}。`,
    'notices.breakerThrottled.body': (p: { reason: string }) => `原因：${p.reason}。`,
    'notices.breakerClosed.body': (p: { reason: string }) => `熔断器已闭合：${p.reason}。`,
    'notices.tokenBudget.body': (p: { tokens: number; budget: number | null }, f: Formatters) =>
      `过去一分钟使用了 ${f.integer(p.tokens)} 个 token（预算 ${p.budget === null ? '?' : f.integer(p.budget)}）。`,
    'notices.cooldownLoop.body': (
      p: { profile: string; why: string | null; kind: CooldownKind; entries: number; spanMs: number; counts: number[] },
      f: Formatters,
    ) =>
      `配置档 ${p.profile} 在 ${f.duration(p.spanMs)} 内 ${p.entries} 次重新进入 OpenClaw 的${ZH_KIND[p.kind]}状态（原因：${p.why ?? '未记录'}）${
        p.counts.length > 1 ? `（失败计数 ${p.counts.join(' → ')}）` : ''
      }，期间没有一次成功调用；`,
    'notices.cooldownLong.body': (p: { profile: string; why: string | null }) =>
      `配置档 ${p.profile}（原因：${p.why ?? '未记录'}）`,
    'notices.cooldown.ends': (p: { kind: CooldownKind; until: number; leftMs: number }, f: Formatters) =>
      `${ZH_KIND[p.kind]}至 ${new Date(p.until).toISOString()}（还有 ${f.duration(p.leftMs)}）`,
    'notices.cooldown.loopTail': (p: { ends: string }) => `目前${p.ends}。`,
    'notices.cooldown.longTail': (p: { ends: string; why: string | null }) =>
      `${p.ends}：在此之前 OpenClaw 不会使用它。`,
    'notices.cooldown.restart': '重启网关无法解除：OpenClaw 会把这一状态保存在磁盘上。',
    'notices.cooldown.advice': (p: { reason: string | null }) =>
      ZH_ADVICE[p.reason ?? ''] ?? '请检查服务商账户和密钥；`openclaw models status` 会列出它。',

    'notices.coalesced': (p: { body: string; count: number; spanMs: number }, f: Formatters) =>
      `${p.body}（最近 ${f.duration(p.spanMs)} 内另有 ${f.integer(p.count)} 条同类通知；这是最新一条）`,
    'notices.webhook.severity': (p: { severity: Severity }) => `【${ZH_SEVERITY[p.severity]}】`,
    'notices.webhook.origin': (p: { dep: string | null }) => `BreakerBar · ${p.dep ?? '网关'}`,
  },
);
