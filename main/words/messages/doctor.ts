/**
 * `breakerbar doctor`'s findings, every check's (main/core/doctor/*-check.ts). Two kinds stay English, their
 * title being another module's own line: a warning about the gateway's port or token (gateway-endpoint.ts), and
 * the gateway's service as launchd or systemd shows it (its summary). Data (paths, URLs, commands, an OS error,
 * a probe's detail) goes in as parameters, never translated.
 */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';
import { enOwner, type OwnerWords, zhOwner } from './gateway-owner.js';

type OwnerRule = 'stopped_itself' | 'external_supervisor' | 'app_bundled';

type Startup = 'started' | 'unknown' | string;
type Trigger = 'manual' | 'health' | 'storm';

const EN_TRIGGER: Record<Trigger, string> = {
  manual: 'manual restart',
  health: 'restart of a dead or hung gateway',
  storm: 'restart after a 429 storm',
};
const ZH_TRIGGER: Record<Trigger, string> = {
  manual: '手动重启',
  health: '网关宕机或卡死时的重启',
  storm: '429 风暴后的重启',
};
/** The restarts a line is about: all three, or each named. */
const ZH_TRIGGER_SHORT: Record<Trigger, string> = { manual: '手动', health: '健康检查', storm: '429 风暴' };
/** `every`: the line is about every restart the watchdog makes (storm restarts may be off). */
const enTriggers = (triggers: Trigger[], every = false) =>
  every ? `every restart (${triggers.join(', ')})` : triggers.map((t) => EN_TRIGGER[t]).join(', ');
const zhTriggers = (triggers: Trigger[], every = false) =>
  every
    ? `所有重启（${triggers.map((t) => ZH_TRIGGER_SHORT[t]).join('、')}）`
    : triggers.map((t) => ZH_TRIGGER[t]).join('、');

const enStartup = (s: Startup) =>
  s === 'started' ? 'started' : s === 'unknown' ? 'startup state unknown (older gateway?)' : s;
const zhStartup = (s: Startup) =>
  s === 'started' ? '已启动' : s === 'unknown' ? '启动状态未知（旧版网关？）' : s === 'starting' ? '正在启动' : s;

/** Where OpenClaw's state directory came from (the place to change it). */
type StateSource = 'config' | 'state_dir' | 'home' | 'default';
const enStateSource = (s: StateSource) =>
  s === 'config'
    ? "openclawDir in BreakerBar's config"
    : s === 'state_dir'
      ? 'OPENCLAW_STATE_DIR'
      : s === 'home'
        ? 'OPENCLAW_HOME/.openclaw'
        : "OpenClaw's default, ~/.openclaw";
const zhStateSource = (s: StateSource) =>
  s === 'config'
    ? ' BreakerBar 配置中的 openclawDir'
    : s === 'state_dir'
      ? ' OPENCLAW_STATE_DIR'
      : s === 'home'
        ? ' OPENCLAW_HOME/.openclaw'
        : ' OpenClaw 的默认位置 ~/.openclaw';

/** What a missing or unreadable gateway log costs, said with every such finding. */
const EN_WITHOUT =
  "the breakers count each upstream attempt from this log's [model-fetch] lines; without it they fall back to " +
  "the transcripts, which keep only each run's last failure (a run's retries go uncounted), and fallback " +
  'decisions, stalled sessions and run timeouts go unseen';
const ZH_WITHOUT =
  '熔断器根据这份日志的 [model-fetch] 行统计每一次上游尝试；没有它就只能退回到会话记录，而会话记录只保留每次运行的最后一次失败（运行中的重试不计入），回退决定、卡住的会话和运行超时也都看不到';

export const doctor = area(
  {
    'doctor.gateway.url': (p: { url: string }) => `gateway URL ${p.url}`,
    'doctor.gateway.tokenFound': 'gateway operator token found',
    'doctor.gateway.tokenMissing': 'no gateway operator token found',
    'doctor.gateway.answers': (p: { url: string; latencyMs: number; startup: Startup }, f: Formatters) =>
      `gateway answers at ${p.url}: live in ${f.integer(p.latencyMs)} ms, ${enStartup(p.startup)}`,
    'doctor.gateway.busy': (p: { url: string; state: 'starting' | 'draining' }) => `gateway at ${p.url} is ${p.state}`,
    'doctor.gateway.busyFix': 'wait and run `breakerbar doctor` again; restarting now only starts over',
    'doctor.gateway.refused': (p: { where: string }) => `nothing listens on ${p.where}`,
    'doctor.gateway.refusedFix':
      'is the gateway running? `openclaw gateway status`; if it listens on another port, set gatewayUrl or OPENCLAW_GATEWAY_PORT',
    'doctor.gateway.hung': (p: { url: string; timeoutMs: number }, f: Formatters) =>
      `gateway at ${p.url} accepted the connection but did not answer within ${f.duration(p.timeoutMs)}: hung`,
    'doctor.gateway.hungFix':
      'restart it: `openclaw gateway restart --force` (the watchdog does this after repeated dead probes)',
    'doctor.gateway.connectTimeout': (p: { where: string; timeoutMs: number }, f: Formatters) =>
      `no connection to ${p.where} within ${f.duration(p.timeoutMs)}`,
    'doctor.gateway.connectTimeoutFix':
      'check gatewayUrl: the gateway listens on loopback; a firewall or a wrong address drops the connection',
    'doctor.gateway.notOpenClaw': (p: { url: string }) =>
      `something other than the OpenClaw gateway answers at ${p.url}`,
    'doctor.gateway.notOpenClawFix':
      'check the port (`openclaw gateway status`) and set gatewayUrl or OPENCLAW_GATEWAY_PORT to the gateway',
    'doctor.sources.agents': (p: { n: number; dir: string }) => `${p.n} agent(s) under ${p.dir}`,
    'doctor.sources.noAgents': (p: { dir: string }) => `no agents under ${p.dir}`,
    'doctor.sources.jsonl': (p: { files: number; agents: number }) =>
      `${p.files} JSONL transcript file(s) in ${p.agents} agent(s)`,
    'doctor.sources.databases': (p: { n: number; versions: number[] }) =>
      `${p.n} SQLite agent database(s), schema version ${p.versions.join(', ')}`,
    'doctor.sources.noTranscripts': 'no transcripts yet in any agent',
    'doctor.restart.off': 'watchdog off (watchdog.enabled false)',
    'doctor.restart.offDetail':
      'BreakerBar watches but never restarts the gateway on its own; manual restarts still use the plan below',
    'doctor.restart.dryRun': 'watchdog in dry run (watchdog.dryRun)',
    'doctor.restart.dryRunDetail': 'restarts are decided and notified, never run',
    'doctor.restart.on': 'watchdog on',
    'doctor.restart.onDetail': (p: { probes: number; checks: number | null; max: number }) =>
      p.checks === null
        ? `restarts a dead gateway after ${p.probes} dead probes, and a hung one, at most ${p.max} per hour; a 429 storm is alerted and waited out, not restarted (watchdog.stormRestart: off)`
        : `restarts after ${p.probes} dead probes or ${p.checks} checks with new 429s, at most ${p.max} per hour`,
    'doctor.restart.plan': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${enTriggers(p.triggers, p.every)}: ${p.description}`,
    'doctor.restart.wouldRun': (p: { argv: string[]; program: string; found: string | null }) =>
      `would run: ${p.argv.join(' ')}${p.found && p.found !== p.program ? ` (${p.program} is ${p.found})` : ''}`,
    'doctor.restart.noPlan': (p: { triggers: Trigger[]; every: boolean }) =>
      `no way to restart the gateway for ${enTriggers(p.triggers, p.every)}`,
    'doctor.restart.owner': (p: OwnerWords) => `gateway owner: ${enOwner(p)}`,
    'doctor.restart.ownerBlocked': (p: OwnerWords & { rule: OwnerRule }) =>
      p.rule === 'stopped_itself'
        ? 'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); BreakerBar will not restart it'
        : `gateway owner: ${enOwner(p)}; BreakerBar alerts instead of restarting it`,
    'doctor.restart.ownerFix': (p: { rule: OwnerRule }): string => {
      switch (p.rule) {
        case 'stopped_itself':
          return 'upgrade OpenClaw, then start the gateway again (`openclaw gateway start`)';
        case 'external_supervisor':
          return 'let that supervisor restart the gateway, or set watchdog.restartCommand to the command that restarts it through the supervisor';
        case 'app_bundled':
          return 'reopen the OpenClaw app when the gateway stops; for restarts by BreakerBar install the gateway service (`openclaw gateway install`) or set watchdog.restartCommand';
      }
    },
    'doctor.restart.noPlanFix':
      'set watchdog.restartCommand to the command that restarts your gateway (argv, absolute program path), or install the openclaw CLI',
    'doctor.privacy.private': 'data directory and its files are private to this user (0700, 0600)',
    'doctor.privacy.dirOpen': (p: { path: string; mode: string }) =>
      `the data directory ${p.path} is open to other users (mode ${p.mode})`,
    'doctor.privacy.fileOpen': (p: { path: string; mode: string }) =>
      `${p.path} is open to other users (mode ${p.mode})`,
    'doctor.privacy.detail':
      'it holds which agents called which models, when and at what cost; the token file opens the local API',
    'doctor.privacy.fix': (p: { path: string; mode: string }) =>
      `run \`chmod ${p.mode} ${p.path}\` (BreakerBar sets these modes itself on what it creates)`,
    'doctor.config.file': (p: { path: string }) => `config file ${p.path}`,
    'doctor.config.none': 'no config file: using the defaults',
    'doctor.config.noneDetail': (p: { path: string }) =>
      `looked for ${p.path} (BREAKERBAR_CONFIG or --config name another)`,
    'doctor.config.unusable': 'the config cannot be used',
    'doctor.config.unusableFix':
      'correct the file (docs/configuration.md lists every key with its type and default), or pass --config with another file; the daemon refuses to start until then',
    'doctor.config.defaults': 'the checks below use the default settings instead',
    'doctor.gateway.portSource': (p: { source: 'config' | 'env' | 'openclaw.json' | 'default'; path: string }) =>
      p.source === 'config'
        ? "gatewayUrl in BreakerBar's config"
        : p.source === 'env'
          ? 'port from OPENCLAW_GATEWAY_PORT'
          : p.source === 'openclaw.json'
            ? `port from gateway.port in ${p.path}`
            : "OpenClaw's default port (no OPENCLAW_GATEWAY_PORT, no gateway.port in openclaw.json)",
    'doctor.gateway.endpointFix':
      'correct or remove that value; meanwhile the next place in the order is used (gatewayUrl, OPENCLAW_GATEWAY_PORT, gateway.port, 18789)',
    'doctor.gateway.tokenFrom': (p: { source: 'config' | 'env' | 'openclaw.json'; path: string }) =>
      `from ${p.source === 'config' ? "gatewayToken in BreakerBar's config" : p.source === 'env' ? 'OPENCLAW_GATEWAY_TOKEN' : `gateway.auth.token in ${p.path}`} (not shown)`,
    'doctor.gateway.tokenForMetrics':
      "OpenClaw's own metrics need it (served only where OpenClaw's diagnostics-prometheus plugin is installed and enabled); BreakerBar does not need those metrics: the gateway log and transcripts are read without it",
    'doctor.gateway.tokenForMetricsFix':
      "only if this gateway has that plugin (`openclaw plugins list` shows it): set OPENCLAW_GATEWAY_TOKEN or gatewayToken in BreakerBar's config",
    'doctor.gateway.tokenNotNeeded': 'only needed for gatewayMetrics, which is off',
    'doctor.gateway.notReady': (p: { failing: string[] }) =>
      p.failing.length > 0 ? `gateway not ready: ${p.failing.join(', ')} failing` : 'gateway not ready (/readyz)',
    'doctor.gateway.notReadyDetail':
      'channels report their health separately from the gateway: a restart will not fix a channel',
    'doctor.gateway.notReadyFix': 'check the channel with `openclaw health --json` and its credentials',
    'doctor.gateway.busyDetail': (p: { state: 'starting' | 'draining'; detail: string }) =>
      p.state === 'starting'
        ? `${p.detail}; startup can take minutes on large installs`
        : `${p.detail}; it is finishing work before stopping`,
    'doctor.gateway.reset': (p: { url: string }) => `gateway at ${p.url} reset the connection`,
    'doctor.gateway.resetFix': 'is something else listening on that port? `openclaw gateway status`',
    'doctor.gateway.cannotProbe': (p: { url: string }) => `cannot probe the gateway at ${p.url}`,
    'doctor.gateway.cannotProbeFix': 'set gatewayUrl to the http:// URL of the gateway on loopback',
    'doctor.gateway.notOpenClawDetail': (p: { detail: string }) =>
      `${p.detail}; the watchdog never restarts anything for it`,
    'doctor.gateway.unjudged': (p: { url: string }) => `could not judge the gateway at ${p.url}`,
    'doctor.gateway.unjudgedFix': 'BreakerBar itself was too busy to time the probe: run `breakerbar doctor` again',
    'doctor.gateway.http': (p: { url: string; status: number }) => `gateway at ${p.url} answered HTTP ${p.status}`,
    'doctor.gateway.httpFix': (p: { status: number }): string =>
      p.status >= 500
        ? 'the gateway is failing: see its log, then `openclaw gateway restart`'
        : 'is this the OpenClaw gateway? check the port (`openclaw gateway status`) and gatewayUrl',
    'doctor.fs.permissionFix': (p: { user: string; path: string }) =>
      `BreakerBar runs as ${p.user}: run it as the user that runs the gateway, or give that user read access to ${p.path} (see \`ls -ld ${p.path}\`; e.g. chmod or a shared group)`,
    'doctor.sources.agentsDirMissing': (p: { dir: string }) => `no agents: ${p.dir} does not exist`,
    'doctor.sources.noAgentsFix':
      "start the gateway once and talk to an agent (it creates agents/<id>/), or point openclawDir in BreakerBar's config at the right place (profiles: ~/.openclaw-<profile>)",
    'doctor.sources.cannotListDenied': (p: { dir: string }) => `cannot list ${p.dir} (permission denied)`,
    'doctor.sources.cannotList': (p: { dir: string; code: string }) => `cannot list ${p.dir} (${p.code})`,
    'doctor.sources.sessionsNotRead': (p: { agent: string }) => `agent ${p.agent}: its JSONL transcripts are not read`,
    'doctor.sources.unreadable': (p: { n: number; agent: string }) =>
      `${p.n} transcript file(s) of agent ${p.agent} cannot be read (permission denied)`,
    'doctor.sources.unreadableDetail': (p: { first: string; more: number }) =>
      p.more > 0 ? `${p.first} and ${p.more} more` : p.first,
    'doctor.sources.archived': (p: { n: number }) =>
      `${p.n} archived transcript(s) (.reset/.deleted/.corrupt-/.bak) not read; ingest.includeArchives reads them`,
    'doctor.sources.legacy': 'legacy transcripts (OpenClaw up to 2026.7.1)',
    'doctor.sources.noTranscriptsDetail': (p: { database: string }) =>
      `looked for agents/<id>/sessions/*.jsonl and agents/<id>/agent/${p.database}`,
    'doctor.sources.noTranscriptsFix':
      'they appear after the first conversation with an agent; if the gateway has been used, check that openclawDir points at its state directory',
    'doctor.sources.databaseUnreadable': (p: { agent: string }) => `agent database of ${p.agent} cannot be read`,
    'doctor.sources.compressedOk': (p: { agent: string; rows: number; tried: number }) =>
      `agent database of ${p.agent}: ${p.rows} zstd-compressed row(s), ${p.tried === p.rows ? 'all decode' : `the ${p.tried} newest decode`}`,
    'doctor.sources.decodedWith': (p: { decoder: string }) => `decoded with ${p.decoder}`,
    'doctor.sources.compressedFailing': (p: { agent: string; rows: number; failures: number; tried: number }) =>
      `agent database of ${p.agent}: ${p.rows} zstd-compressed row(s); ${p.failures} of the ${p.tried} newest do not decode`,
    'doctor.sources.compressedFailingDetail': (p: { path: string; rowid: number; error: string; decoder: string }) =>
      `${p.path}, row ${p.rowid}: ${p.error} (decoder ${p.decoder}); such rows are skipped and their calls not counted`,
    'doctor.sources.compressedFailingFix':
      'upgrade BreakerBar in case OpenClaw changed how it compresses; if that does not help, report it with `breakerbar doctor --json`',
    'doctor.restart.programMissing': (p: { triggers: Trigger[]; every: boolean; program: string }) =>
      `${enTriggers(p.triggers, p.every)}: ${p.program} not found`,
    'doctor.restart.programMissingFix': (p: { program: string }) =>
      `install ${p.program}, or fix watchdog.restartCommand (an absolute path is safest: services start with a minimal PATH)`,
    'doctor.restart.notInstalled': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${enTriggers(p.triggers, p.every)}: ${p.description}, but the gateway service is not installed`,
    'doctor.restart.installFix':
      'install the service with `openclaw gateway install`, or set watchdog.restartCommand to how you run the gateway',
    'doctor.restart.cannotWork': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${enTriggers(p.triggers, p.every)}: ${p.description} cannot work here`,
    'doctor.restart.serviceDisabledFix': 'turn the service back on if BreakerBar should restart it',
    'doctor.restart.relative': (p: { triggers: Trigger[]; every: boolean; program: string }) =>
      `${enTriggers(p.triggers, p.every)}: ${p.program} is a relative path`,
    'doctor.restart.relativeDetail': (p: { argv: string[] }) =>
      `would run: ${p.argv.join(' ')}; it resolves against the daemon's working directory`,
    'doctor.restart.relativeFix': 'use an absolute path in watchdog.restartCommand',
    'doctor.notify.desktopOff': 'desktop notifications off (notifications.desktop false)',
    'doctor.notify.through': (p: { helper: string }) =>
      `desktop notifications through node-notifier's bundled ${p.helper}`,
    'doctor.notify.helperMissing': (p: { helper: string }) =>
      `desktop notifications: node-notifier's bundled ${p.helper} is missing`,
    'doctor.notify.noNodeNotifier': 'node-notifier is not installed',
    'doctor.notify.reinstallFix': 'reinstall BreakerBar (npm install) or set notifications.desktop to false',
    'doctor.notify.wsl': 'desktop notifications through Windows toasts (WSL)',
    'doctor.notify.wslDetail': "node-notifier's SnoreToast",
    'doctor.notify.noBackend': (p: { platform: string }) =>
      `desktop notifications: node-notifier has no backend for ${p.platform}`,
    'doctor.notify.noBackendFix':
      'use a webhook instead (notifications.webhooks), or set notifications.desktop to false',
    'doctor.notify.noNotifySend': 'desktop notifications: notify-send not found on PATH',
    'doctor.notify.noNotifySendDetail': 'node-notifier shows Linux notifications with notify-send (libnotify)',
    'doctor.notify.noNotifySendFix':
      'apt-get install libnotify-bin and run a notification daemon, or set notifications.desktop to false',
    'doctor.notify.noBus': 'desktop notifications: no desktop session bus (DBUS_SESSION_BUS_ADDRESS unset)',
    'doctor.notify.noBusDetail': (p: { path: string }) =>
      `notify-send is ${p.path}, but without a session bus it cannot reach a notification daemon (a server, or a service started outside the desktop session)`,
    'doctor.notify.noBusFix': 'run BreakerBar in your desktop session, or set notifications.desktop to false',
    'doctor.notify.notifySend': 'desktop notifications through notify-send',
    'doctor.notify.notifySendDetail': (p: { path: string }) => `${p.path}; session bus found`,
    'doctor.notify.webhook': (p: { n: number; type: string; url: string }) => `webhook ${p.n}: ${p.type} → ${p.url}`,
    'doctor.notify.webhookDetail': (p: { problems: string[]; events: string[]; minSeverity: string }) =>
      `${p.problems.map((x) => `${x}; `).join('')}events: ${p.events.join(', ')}; minSeverity: ${p.minSeverity}`,
    'doctor.notify.webhookFix': (p: { i: number; file: string | null }) =>
      `fix notifications.webhooks[${p.i}]${p.file ? ` in ${p.file}` : ''}`,
    'doctor.notify.noWebhooks': 'no webhooks',
    'doctor.notify.desktopOnly': 'alerts go to the desktop only',
    'doctor.notify.dashboardOnly': 'and desktop notifications are off: alerts show only in the dashboard and /metrics',
    'doctor.notify.addWebhookFix':
      'add one under notifications.webhooks (slack, discord, telegram, feishu, dingtalk, ntfy, generic)',
    'doctor.notify.noHeartbeat': 'no heartbeat (heartbeat.url null)',
    'doctor.notify.noHeartbeatDetail': 'nothing off this machine notices if BreakerBar itself stops',
    'doctor.notify.noHeartbeatFix': 'set heartbeat.url to a push monitor (healthchecks.io, Uptime Kuma)',
    'doctor.notify.heartbeat': (p: { kind: string; url: string; intervalSec: number }) =>
      `heartbeat (${p.kind}) → ${p.url} every ${p.intervalSec} s`,
    'doctor.notify.noPush': 'no push recorded yet',
    'doctor.notify.noPushFix': 'start the daemon (`breakerbar daemon`)',
    'doctor.notify.pushFailed': (p: { age: number; error: string | null }) =>
      `last push ${p.age} s ago failed: ${p.error ?? 'unknown error'}`,
    'doctor.notify.pushFailedFix': 'check heartbeat.url and that this machine can reach it',
    'doctor.notify.pushStale': (p: { age: number }) => `last push ${p.age} s ago was delivered, but none since`,
    'doctor.notify.pushStaleFix': 'is the daemon running? (`breakerbar status`)',
    'doctor.notify.pushOk': (p: { age: number; status: string }) =>
      `last push ${p.age} s ago delivered (status ${p.status})`,
    'doctor.openclaw.version': (p: { version: string }) => `OpenClaw ${p.version}`,
    'doctor.openclaw.versionFrom': (p: { binary: string; how: 'package' | 'cli' }) =>
      `${p.binary}, version from ${p.how === 'package' ? 'its package.json' : '`openclaw --version`'}`,
    'doctor.openclaw.versionUnknown': 'OpenClaw version unknown',
    'doctor.openclaw.noCli': 'no openclaw CLI on PATH or in the usual install places',
    'doctor.openclaw.from': (p: { source: StateSource }) => `from ${enStateSource(p.source)}`,
    'doctor.openclaw.fromWithOthers': (p: { source: StateSource; others: string[] }) =>
      `from ${enStateSource(p.source)}${p.others.length > 0 ? `; other OpenClaw state directories here: ${p.others.join(', ')}` : ''}`,
    'doctor.openclaw.noStateFix':
      "start the gateway once (`openclaw gateway start`) so it creates its state, or point openclawDir in BreakerBar's config (or OPENCLAW_STATE_DIR) at the right place",
    'doctor.openclaw.stateMissing': (p: { dir: string }) => `OpenClaw state directory ${p.dir} does not exist`,
    'doctor.openclaw.stateDenied': (p: { dir: string }) =>
      `cannot reach the OpenClaw state directory ${p.dir} (permission denied)`,
    'doctor.openclaw.stateUnusable': (p: { dir: string; code: string }) =>
      `cannot use the OpenClaw state directory ${p.dir} (${p.code})`,
    'doctor.openclaw.notDirectory': (p: { dir: string }) => `${p.dir} is not a directory`,
    'doctor.openclaw.stateDir': (p: { dir: string }) => `state directory ${p.dir}`,
    'doctor.openclaw.stateUnreadable': (p: { dir: string; denied: boolean }) =>
      `cannot read the OpenClaw state directory ${p.dir}${p.denied ? ' (permission denied)' : ''}`,
    'doctor.openclaw.profileMismatch': (p: { profile: string; dir: string }) =>
      `profile "${p.profile}" is set, but the state directory is ${p.dir}`,
    'doctor.openclaw.profileMismatchDetail': (p: { profile: string; expected: string }) =>
      `a gateway started with --profile ${p.profile} keeps its state in ~/${p.expected}`,
    'doctor.openclaw.profileMismatchFix': (p: { expected: string }) =>
      `set openclawDir to ~/${p.expected} in BreakerBar's config`,
    'doctor.openclaw.profile': (p: { profile: string }) => `profile "${p.profile}"`,
    'doctor.openclaw.profileDetail': (p: { profile: string }) =>
      `gateway log openclaw-${p.profile}-YYYY-MM-DD.log, service ai.openclaw.${p.profile} / openclaw-gateway-${p.profile}.service`,
    'doctor.openclaw.configUnusable': 'openclaw.json cannot be used',
    'doctor.openclaw.configUnusableFix':
      'fix it where the message says (the gateway reads the same file); BreakerBar uses the defaults meanwhile',
    'doctor.openclaw.configRead': (p: { path: string }) => `openclaw.json read: ${p.path}`,
    'doctor.openclaw.noConfig': (p: { path: string }) => `no openclaw.json at ${p.path}`,
    'doctor.openclaw.noConfigDetail':
      'OpenClaw then runs on its defaults (port 18789); OPENCLAW_CONFIG_PATH names another file',
    'doctor.openclaw.facts': (p: { port: string | null; primary: string | null; fallbacks: number | null }) =>
      [
        p.port === null ? '' : `gateway.port ${p.port}`,
        p.primary === null ? '' : `primary model ${p.primary}`,
        p.fallbacks === null ? '' : `${p.fallbacks} fallback model(s)`,
      ]
        .filter((x) => x !== '')
        .join(', '),
    'doctor.log.without': EN_WITHOUT,
    'doctor.log.trustWhy':
      'whoever can write there can write gateway log lines BreakerBar acts on (a storm, a restart it calls for); OpenClaw itself logs to such a directory only when it is safe, and otherwise falls back to one of your own',
    'doctor.log.trustFix': (p: { dir: string }) =>
      `remove ${p.dir} and let the gateway create it again, or point OpenClaw's logging.file at a directory of your own (and gatewayLogDir with it)`,
    'doctor.log.otherOwner': (p: { dir: string; uid: number }) =>
      `gateway log directory ${p.dir} belongs to another user (uid ${p.uid})`,
    'doctor.log.worldWritable': (p: { dir: string }) => `gateway log directory ${p.dir} can be written by every user`,
    'doctor.log.loggingFile': (p: { file: string; dir: string }) =>
      `openclaw.json sets logging.file to ${p.file}, but BreakerBar reads gateway logs in ${p.dir}`,
    'doctor.log.loggingFileFix': (p: { dir: string; prefix: string }) =>
      `set gatewayLogDir to ${p.dir} in BreakerBar's config (it follows ${p.prefix}-YYYY-MM-DD.log files there)`,
    'doctor.log.dirMissing': (p: { dir: string }) => `gateway log directory ${p.dir} does not exist`,
    'doctor.log.dirMissingDetail': `${EN_WITHOUT}; /tmp is emptied at boot until the gateway logs again`,
    'doctor.log.dirMissingFix':
      'start the gateway (it creates the directory with its first log line), or set gatewayLogDir to where its log is written',
    'doctor.log.dirDenied': (p: { dir: string }) =>
      `cannot reach the gateway log directory ${p.dir} (permission denied)`,
    'doctor.log.dirUnusable': (p: { dir: string; code: string }) =>
      `cannot use the gateway log directory ${p.dir} (${p.code})`,
    'doctor.log.notDirectory': (p: { dir: string }) => `gateway log directory ${p.dir} is not a directory`,
    'doctor.log.notDirectoryFix': 'set gatewayLogDir to the directory of the gateway log',
    'doctor.log.cannotList': (p: { dir: string; code: string }) =>
      `cannot list the gateway log directory ${p.dir}${p.code === 'EACCES' || p.code === 'EPERM' ? ' (permission denied)' : ` (${p.code})`}`,
    'doctor.log.notFile': (p: { path: string }) => `today's gateway log ${p.path} is not a regular file`,
    'doctor.log.notFileDetail': `it is skipped, never opened (a named pipe there would hold whoever reads it); ${EN_WITHOUT}`,
    'doctor.log.notFileFix': 'remove it; the gateway creates its log again with its next line',
    'doctor.log.today': (p: { path: string }) => `today's gateway log ${p.path}`,
    'doctor.log.todayDenied': (p: { path: string }) =>
      `today's gateway log ${p.path} cannot be read (permission denied)`,
    'doctor.log.noneToday': (p: { date: string; dir: string }) => `no gateway log for today (${p.date}) in ${p.dir}`,
    'doctor.log.noneTodayDetail': (p: { newest: string | null; prefix: string; dir: string; others: string[] }) =>
      [
        p.newest ? `newest here: ${p.newest}` : `no ${p.prefix}-YYYY-MM-DD.log files in ${p.dir}`,
        p.others.length > 0 ? `logs of profile(s) ${p.others.join(', ')} are here` : '',
        EN_WITHOUT,
      ]
        .filter((s) => s !== '')
        .join('; '),
    'doctor.log.noneTodayFix': (p: { profile: string | null }) =>
      p.profile !== null
        ? `if the gateway runs with --profile, set profile in BreakerBar's config (e.g. "${p.profile}")`
        : 'is the gateway running? (`openclaw gateway status`); if it logs elsewhere (logging.file), set gatewayLogDir',
    'doctor.bb.version': (p: { version: string; node: string; platform: string }) =>
      `BreakerBar ${p.version} on Node ${p.node} (${p.platform})`,
    'doctor.bb.noDataDir': (p: { dir: string }) => `no data directory yet (${p.dir})`,
    'doctor.bb.noDataDirDetail': 'the daemon creates it, with its database, on its first start',
    'doctor.bb.startFix': 'start it: `breakerbar daemon`, or `breakerbar service install` to run it in the background',
    'doctor.bb.dataDirUnusable': (p: { dir: string; code: string }) =>
      `cannot use the data directory ${p.dir} (${p.code})`,
    'doctor.bb.dataDirFix': 'set dataDir to a directory BreakerBar can write',
    'doctor.bb.database': (p: { path: string }) => `database ${p.path}`,
    'doctor.bb.noDatabase': (p: { path: string }) => `no database yet (${p.path})`,
    'doctor.bb.noDatabaseDetail': 'the daemon creates it on its first start',
    'doctor.bb.noDatabaseFix': 'start it: `breakerbar daemon`, or `breakerbar service install`',
    'doctor.bb.lockUnknown': 'cannot tell whether a daemon is running',
    'doctor.bb.noDaemon': (p: { dir: string }) => `no BreakerBar daemon running for ${p.dir}`,
    'doctor.bb.leftover': (p: { file: string }) => `${p.file} is left from an earlier run`,
    'doctor.bb.daemon': (p: { pid: number | null }) => `daemon running${p.pid !== null ? ` (pid ${p.pid})` : ''}`,
    'doctor.bb.forDir': (p: { dir: string }) => `for ${p.dir}`,
    'doctor.bb.apiUnknown': 'the daemon API address is unknown',
    'doctor.bb.apiUnknownDetail': (p: { file: string }) =>
      `server.port is 0 (chosen at start) and the daemon wrote no ${p.file}`,
    'doctor.bb.apiUnknownFix': 'set server.port to a fixed port, or upgrade the running daemon',
    'doctor.bb.api': (p: { url: string }) => `API answers at ${p.url}`,
    'doctor.bb.apiDetail': (p: { file: string | null; latencyMs: number }) =>
      `${p.file ? `from ${p.file}` : 'from server.host and server.port'}; /healthz in ${p.latencyMs} ms`,
    'doctor.bb.apiDown': (p: { url: string; what: string }) =>
      `the daemon's API does not answer at ${p.url} (${p.what})`,
    'doctor.bb.apiDownDetail': (p: { file: string | null }) =>
      p.file
        ? `from ${p.file}; the daemon runs but its API is unreachable: the tray app and the dashboard cannot reach it`
        : 'from server.host and server.port; a daemon started with --port listens elsewhere',
    'doctor.bb.apiDownFix': (p: { written: boolean }): string =>
      p.written
        ? "see the daemon's log (`breakerbar service status`), then restart it"
        : 'upgrade the daemon (newer ones write api-url), or check server.port and --port',
    'doctor.bb.noStatus': 'cannot ask the daemon how its sources read',
    'doctor.bb.folded': (p: { folded: number; max: number }) =>
      `${p.folded} dependencies past the ceiling of ${p.max} are counted under <provider>/other`,
    'doctor.bb.foldedDetail':
      'each has no breaker or metrics of its own (a client inventing model names, or many real models)',
    'doctor.bb.foldedFix': 'if they are real models, raise breakers.maxDependencies and restart the daemon',
    'doctor.bb.readerProblem': (p: { kind: string; error: string }) => `${p.kind} reader has a problem: ${p.error}`,
    'doctor.bb.readerCounts': (p: { inputs: number; stored: number }) =>
      `${p.inputs} input(s), ${p.stored} call(s) stored since the daemon started`,
    'doctor.bb.readerProblemFix':
      "see the Sources findings above and the daemon's log; it retries by itself once the cause is gone",
    'doctor.bb.readerLive': (p: { kind: string; inputs: number; stored: number }) =>
      `${p.kind} reader live: ${p.inputs} input(s), ${p.stored} call(s) stored`,
    'doctor.bb.readerLiveDetail': (p: { agoMs: number | null; pending: number }, f: Formatters) =>
      `${p.agoMs === null ? 'nothing read yet' : `newest record ${f.duration(p.agoMs)} ago`}; ${p.pending} pending`,
    'doctor.bb.full': (p: { forMs: number | null }, f: Formatters) =>
      `the daemon has had no room to store${p.forMs === null ? '' : ` for ${f.duration(p.forMs)}`}`,
    'doctor.bb.fullDetail': (p: { detail: string | null; refused: number }) =>
      `${p.detail ?? 'the disk is full'}; ${p.refused} write(s) refused; new calls reach no breaker until then`,
    'doctor.bb.fullFix': (p: { dir: string }) =>
      `free space on the disk holding ${p.dir} (\`df -h ${p.dir}\`): storing resumes by itself within seconds`,
    'doctor.bb.replaced': (p: { problem: string }) =>
      `the daemon's database was ${p.problem === 'deleted' ? 'deleted' : 'replaced'} while it runs`,
    'doctor.bb.restartFix': 'restart BreakerBar',
    'doctor.bb.diskLow': (p: { dir: string; free: string }) =>
      `the disk holding ${p.dir} is nearly full (${p.free} free)`,
    'doctor.bb.diskLowDetail':
      'with no room the daemon keeps running but stores nothing new, so breakers and storm checks see nothing new',
    'doctor.bb.diskLowFix': (p: { dir: string }) =>
      `free space there (\`df -h ${p.dir}\`), or set dataDir to another disk`,
    'doctor.checkFailed': 'this check failed unexpectedly',
    'doctor.checkFailedFix': 'please report it with this output',
  },
  {
    'doctor.gateway.url': (p: { url: string }) => `网关地址 ${p.url}`,
    'doctor.gateway.tokenFound': '找到了网关操作令牌',
    'doctor.gateway.tokenMissing': '没有找到网关操作令牌',
    'doctor.gateway.answers': (p: { url: string; latencyMs: number; startup: Startup }, f: Formatters) =>
      `网关在 ${p.url} 应答：存活，耗时 ${f.integer(p.latencyMs)} 毫秒，${zhStartup(p.startup)}`,
    'doctor.gateway.busy': (p: { url: string; state: 'starting' | 'draining' }) =>
      `${p.url} 上的网关${p.state === 'starting' ? '正在启动' : '正在排空'}`,
    'doctor.gateway.busyFix': '请稍候再运行 `breakerbar doctor`；现在重启只会从头再来',
    'doctor.gateway.refused': (p: { where: string }) => `${p.where} 上没有程序在监听`,
    'doctor.gateway.refusedFix':
      '网关在运行吗？运行 `openclaw gateway status`；如果它监听在其他端口，请设置 gatewayUrl 或 OPENCLAW_GATEWAY_PORT',
    'doctor.gateway.hung': (p: { url: string; timeoutMs: number }, f: Formatters) =>
      `${p.url} 上的网关接受了连接，但 ${f.duration(p.timeoutMs)} 内没有应答：已卡死`,
    'doctor.gateway.hungFix': '重启它：`openclaw gateway restart --force`（看门狗在多次探测失败后也会这样做）',
    'doctor.gateway.connectTimeout': (p: { where: string; timeoutMs: number }, f: Formatters) =>
      `${f.duration(p.timeoutMs)} 内无法连接到 ${p.where}`,
    'doctor.gateway.connectTimeoutFix': '请检查 gatewayUrl：网关监听在本机回环地址；防火墙或错误的地址会丢弃连接',
    'doctor.gateway.notOpenClaw': (p: { url: string }) => `${p.url} 上应答的不是 OpenClaw 网关`,
    'doctor.gateway.notOpenClawFix':
      '请检查端口（`openclaw gateway status`），并把 gatewayUrl 或 OPENCLAW_GATEWAY_PORT 设为网关的地址',
    'doctor.sources.agents': (p: { n: number; dir: string }) => `${p.dir} 下有 ${p.n} 个智能体`,
    'doctor.sources.noAgents': (p: { dir: string }) => `${p.dir} 下没有智能体`,
    'doctor.sources.jsonl': (p: { files: number; agents: number }) =>
      `${p.agents} 个智能体中有 ${p.files} 个 JSONL 会话记录文件`,
    'doctor.sources.databases': (p: { n: number; versions: number[] }) =>
      `${p.n} 个 SQLite 智能体数据库，结构版本 ${p.versions.join('、')}`,
    'doctor.sources.noTranscripts': '所有智能体都还没有会话记录',
    'doctor.restart.off': '看门狗已关闭（watchdog.enabled 为 false）',
    'doctor.restart.offDetail': 'BreakerBar 只监视，不会自行重启网关；手动重启仍按下面的方式执行',
    'doctor.restart.dryRun': '看门狗处于演练模式（watchdog.dryRun）',
    'doctor.restart.dryRunDetail': '会做出重启决定并发送通知，但从不真正执行',
    'doctor.restart.on': '看门狗已开启',
    'doctor.restart.onDetail': (p: { probes: number; checks: number | null; max: number }) =>
      p.checks === null
        ? `连续 ${p.probes} 次探测失败的宕机网关或卡死的网关会被重启，每小时最多 ${p.max} 次；429 风暴只告警并等待其过去，不重启（watchdog.stormRestart: off）`
        : `连续 ${p.probes} 次探测失败或 ${p.checks} 次检查发现新的 429 后重启，每小时最多 ${p.max} 次`,
    'doctor.restart.plan': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${zhTriggers(p.triggers, p.every)}：${p.description}`,
    'doctor.restart.wouldRun': (p: { argv: string[]; program: string; found: string | null }) =>
      `将执行：${p.argv.join(' ')}${p.found && p.found !== p.program ? `（${p.program} 即 ${p.found}）` : ''}`,
    'doctor.restart.noPlan': (p: { triggers: Trigger[]; every: boolean }) =>
      `${zhTriggers(p.triggers, p.every)}没有可用的重启方式`,
    'doctor.restart.owner': (p: OwnerWords) => `网关归属：${zhOwner(p)}`,
    'doctor.restart.ownerBlocked': (p: OwnerWords & { rule: OwnerRule }) =>
      p.rule === 'stopped_itself'
        ? 'OpenClaw 已自行停止：它的数据库结构比这个网关新（退出码 78）；BreakerBar 不会重启它'
        : `网关归属：${zhOwner(p)}；BreakerBar 只发出提醒，不会重启它`,
    'doctor.restart.ownerFix': (p: { rule: OwnerRule }): string => {
      switch (p.rule) {
        case 'stopped_itself':
          return '请升级 OpenClaw，然后重新启动网关（`openclaw gateway start`）';
        case 'external_supervisor':
          return '由该守护进程负责重启网关，或把 watchdog.restartCommand 设为经由它重启网关的命令';
        case 'app_bundled':
          return '网关停止时请重新打开 OpenClaw 应用；如需 BreakerBar 重启，请安装网关服务（`openclaw gateway install`）或设置 watchdog.restartCommand';
      }
    },
    'doctor.restart.noPlanFix':
      '把 watchdog.restartCommand 设为重启网关的命令（参数数组，程序用绝对路径），或安装 openclaw CLI',
    'doctor.privacy.private': '数据目录及其中的文件仅当前用户可访问（0700、0600）',
    'doctor.privacy.dirOpen': (p: { path: string; mode: string }) =>
      `数据目录 ${p.path} 对其他用户开放（权限 ${p.mode}）`,
    'doctor.privacy.fileOpen': (p: { path: string; mode: string }) => `${p.path} 对其他用户开放（权限 ${p.mode}）`,
    'doctor.privacy.detail': '其中记录了哪些智能体在何时调用了哪些模型、花费多少；令牌文件可以打开本地 API',
    'doctor.privacy.fix': (p: { path: string; mode: string }) =>
      `运行 \`chmod ${p.mode} ${p.path}\`（BreakerBar 会为自己创建的文件自动设置这些权限）`,
    'doctor.config.file': (p: { path: string }) => `配置文件 ${p.path}`,
    'doctor.config.none': '没有配置文件：使用默认设置',
    'doctor.config.noneDetail': (p: { path: string }) =>
      `查找过 ${p.path}（可用 BREAKERBAR_CONFIG 或 --config 指定其他文件）`,
    'doctor.config.unusable': '配置无法使用',
    'doctor.config.unusableFix':
      '请修正该文件（docs/configuration.md 列出了每个配置项的类型和默认值），或用 --config 指定其他文件；在此之前守护进程拒绝启动',
    'doctor.config.defaults': '下面的检查改用默认设置',
    'doctor.gateway.portSource': (p: { source: 'config' | 'env' | 'openclaw.json' | 'default'; path: string }) =>
      p.source === 'config'
        ? 'BreakerBar 配置中的 gatewayUrl'
        : p.source === 'env'
          ? '端口取自 OPENCLAW_GATEWAY_PORT'
          : p.source === 'openclaw.json'
            ? `端口取自 ${p.path} 中的 gateway.port`
            : 'OpenClaw 的默认端口（未设置 OPENCLAW_GATEWAY_PORT，openclaw.json 中也没有 gateway.port）',
    'doctor.gateway.endpointFix':
      '请修正或删除该值；在此之前按顺序使用下一个来源（gatewayUrl、OPENCLAW_GATEWAY_PORT、gateway.port、18789）',
    'doctor.gateway.tokenFrom': (p: { source: 'config' | 'env' | 'openclaw.json'; path: string }) =>
      `来自 ${p.source === 'config' ? 'BreakerBar 配置中的 gatewayToken' : p.source === 'env' ? 'OPENCLAW_GATEWAY_TOKEN' : `${p.path} 中的 gateway.auth.token`}（不显示）`,
    'doctor.gateway.tokenForMetrics':
      'OpenClaw 自身的指标需要它（仅在安装并启用了 OpenClaw 的 diagnostics-prometheus 插件时提供）；BreakerBar 不需要这些指标：读取网关日志和会话记录都不需要它',
    'doctor.gateway.tokenForMetricsFix':
      '仅当这个网关装有该插件时（`openclaw plugins list` 会列出它）：设置 OPENCLAW_GATEWAY_TOKEN 或 BreakerBar 配置中的 gatewayToken',
    'doctor.gateway.tokenNotNeeded': '只有 gatewayMetrics 需要它，而它已关闭',
    'doctor.gateway.notReady': (p: { failing: string[] }) =>
      p.failing.length > 0 ? `网关未就绪：${p.failing.join('、')} 出现故障` : '网关未就绪（/readyz）',
    'doctor.gateway.notReadyDetail': '频道的健康状况与网关分开报告：重启网关修复不了频道',
    'doctor.gateway.notReadyFix': '用 `openclaw health --json` 检查该频道及其凭据',
    'doctor.gateway.busyDetail': (p: { state: 'starting' | 'draining'; detail: string }) =>
      p.state === 'starting'
        ? `${p.detail}；大型安装的启动可能需要几分钟`
        : `${p.detail}；它正在完成手头的工作，然后停止`,
    'doctor.gateway.reset': (p: { url: string }) => `${p.url} 上的网关重置了连接`,
    'doctor.gateway.resetFix': '是否有其他程序在监听该端口？运行 `openclaw gateway status`',
    'doctor.gateway.cannotProbe': (p: { url: string }) => `无法探测 ${p.url} 上的网关`,
    'doctor.gateway.cannotProbeFix': '把 gatewayUrl 设为网关在本机回环地址上的 http:// 地址',
    'doctor.gateway.notOpenClawDetail': (p: { detail: string }) => `${p.detail}；看门狗绝不会因此重启任何程序`,
    'doctor.gateway.unjudged': (p: { url: string }) => `无法判断 ${p.url} 上的网关状态`,
    'doctor.gateway.unjudgedFix': 'BreakerBar 自身太忙，无法为探测计时：请再运行一次 `breakerbar doctor`',
    'doctor.gateway.http': (p: { url: string; status: number }) => `${p.url} 上的网关返回了 HTTP ${p.status}`,
    'doctor.gateway.httpFix': (p: { status: number }): string =>
      p.status >= 500
        ? '网关出现故障：查看它的日志，然后运行 `openclaw gateway restart`'
        : '这是 OpenClaw 网关吗？请检查端口（`openclaw gateway status`）和 gatewayUrl',
    'doctor.fs.permissionFix': (p: { user: string; path: string }) =>
      `BreakerBar 以 ${p.user} 身份运行：请用运行网关的用户运行它，或给该用户 ${p.path} 的读取权限（查看 \`ls -ld ${p.path}\`；例如用 chmod 或共享用户组）`,
    'doctor.sources.agentsDirMissing': (p: { dir: string }) => `没有智能体：${p.dir} 不存在`,
    'doctor.sources.noAgentsFix':
      '启动一次网关并与智能体对话（它会创建 agents/<id>/），或把 BreakerBar 配置中的 openclawDir 指向正确的位置（配置档：~/.openclaw-<profile>）',
    'doctor.sources.cannotListDenied': (p: { dir: string }) => `无法列出 ${p.dir}（权限被拒绝）`,
    'doctor.sources.cannotList': (p: { dir: string; code: string }) => `无法列出 ${p.dir}（${p.code}）`,
    'doctor.sources.sessionsNotRead': (p: { agent: string }) => `智能体 ${p.agent}：不会读取它的 JSONL 会话记录`,
    'doctor.sources.unreadable': (p: { n: number; agent: string }) =>
      `智能体 ${p.agent} 有 ${p.n} 个会话记录文件无法读取（权限被拒绝）`,
    'doctor.sources.unreadableDetail': (p: { first: string; more: number }) =>
      p.more > 0 ? `${p.first} 等另外 ${p.more} 个` : p.first,
    'doctor.sources.archived': (p: { n: number }) =>
      `${p.n} 个已归档的会话记录（.reset/.deleted/.corrupt-/.bak）未读取；开启 ingest.includeArchives 可读取它们`,
    'doctor.sources.legacy': '旧格式会话记录（OpenClaw 2026.7.1 及更早版本）',
    'doctor.sources.noTranscriptsDetail': (p: { database: string }) =>
      `查找过 agents/<id>/sessions/*.jsonl 和 agents/<id>/agent/${p.database}`,
    'doctor.sources.noTranscriptsFix':
      '与智能体第一次对话后就会出现；如果网关已经用过，请检查 openclawDir 是否指向它的状态目录',
    'doctor.sources.databaseUnreadable': (p: { agent: string }) => `智能体 ${p.agent} 的数据库无法读取`,
    'doctor.sources.compressedOk': (p: { agent: string; rows: number; tried: number }) =>
      `智能体 ${p.agent} 的数据库：${p.rows} 行经 zstd 压缩，${p.tried === p.rows ? '全部可以解码' : `最新的 ${p.tried} 行可以解码`}`,
    'doctor.sources.decodedWith': (p: { decoder: string }) => `解码器：${p.decoder}`,
    'doctor.sources.compressedFailing': (p: { agent: string; rows: number; failures: number; tried: number }) =>
      `智能体 ${p.agent} 的数据库：${p.rows} 行经 zstd 压缩；最新的 ${p.tried} 行中有 ${p.failures} 行无法解码`,
    'doctor.sources.compressedFailingDetail': (p: { path: string; rowid: number; error: string; decoder: string }) =>
      `${p.path}，第 ${p.rowid} 行：${p.error}（解码器 ${p.decoder}）；这些行会被跳过，其中的调用不计入统计`,
    'doctor.sources.compressedFailingFix':
      '请升级 BreakerBar，以防 OpenClaw 改变了压缩方式；如果仍无效，请附上 `breakerbar doctor --json` 的输出报告问题',
    'doctor.restart.programMissing': (p: { triggers: Trigger[]; every: boolean; program: string }) =>
      `${zhTriggers(p.triggers, p.every)}：找不到 ${p.program}`,
    'doctor.restart.programMissingFix': (p: { program: string }) =>
      `请安装 ${p.program}，或修正 watchdog.restartCommand（最好用绝对路径：服务启动时的 PATH 很精简）`,
    'doctor.restart.notInstalled': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${zhTriggers(p.triggers, p.every)}：${p.description}，但网关服务尚未安装`,
    'doctor.restart.installFix':
      '用 `openclaw gateway install` 安装该服务，或把 watchdog.restartCommand 设为你运行网关的方式',
    'doctor.restart.cannotWork': (p: { triggers: Trigger[]; every: boolean; description: string }) =>
      `${zhTriggers(p.triggers, p.every)}：${p.description} 在这里无法生效`,
    'doctor.restart.serviceDisabledFix': '如果希望 BreakerBar 重启它，请重新启用该服务',
    'doctor.restart.relative': (p: { triggers: Trigger[]; every: boolean; program: string }) =>
      `${zhTriggers(p.triggers, p.every)}：${p.program} 是相对路径`,
    'doctor.restart.relativeDetail': (p: { argv: string[] }) =>
      `将执行：${p.argv.join(' ')}；它相对于守护进程的工作目录解析`,
    'doctor.restart.relativeFix': '请在 watchdog.restartCommand 中使用绝对路径',
    'doctor.notify.desktopOff': '桌面通知已关闭（notifications.desktop 为 false）',
    'doctor.notify.through': (p: { helper: string }) => `桌面通知经由 node-notifier 自带的 ${p.helper} 发送`,
    'doctor.notify.helperMissing': (p: { helper: string }) => `桌面通知：缺少 node-notifier 自带的 ${p.helper}`,
    'doctor.notify.noNodeNotifier': '没有安装 node-notifier',
    'doctor.notify.reinstallFix': '请重新安装 BreakerBar（npm install），或把 notifications.desktop 设为 false',
    'doctor.notify.wsl': '桌面通知经由 Windows 通知（WSL）发送',
    'doctor.notify.wslDetail': 'node-notifier 的 SnoreToast',
    'doctor.notify.noBackend': (p: { platform: string }) => `桌面通知：node-notifier 不支持 ${p.platform} 平台`,
    'doctor.notify.noBackendFix': '请改用 webhook（notifications.webhooks），或把 notifications.desktop 设为 false',
    'doctor.notify.noNotifySend': '桌面通知：PATH 中找不到 notify-send',
    'doctor.notify.noNotifySendDetail': 'node-notifier 在 Linux 上用 notify-send（libnotify）显示通知',
    'doctor.notify.noNotifySendFix':
      '运行 `apt-get install libnotify-bin` 并启动一个通知守护进程，或把 notifications.desktop 设为 false',
    'doctor.notify.noBus': '桌面通知：没有桌面会话总线（未设置 DBUS_SESSION_BUS_ADDRESS）',
    'doctor.notify.noBusDetail': (p: { path: string }) =>
      `notify-send 位于 ${p.path}，但没有会话总线就无法连到通知守护进程（例如在服务器上，或服务在桌面会话之外启动）`,
    'doctor.notify.noBusFix': '请在桌面会话中运行 BreakerBar，或把 notifications.desktop 设为 false',
    'doctor.notify.notifySend': '桌面通知经由 notify-send 发送',
    'doctor.notify.notifySendDetail': (p: { path: string }) => `${p.path}；已找到会话总线`,
    'doctor.notify.webhook': (p: { n: number; type: string; url: string }) => `webhook ${p.n}：${p.type} → ${p.url}`,
    'doctor.notify.webhookDetail': (p: { problems: string[]; events: string[]; minSeverity: string }) =>
      `${p.problems.map((x) => `${x}；`).join('')}事件：${p.events.join('、')}；最低严重级别：${p.minSeverity}`,
    'doctor.notify.webhookFix': (p: { i: number; file: string | null }) =>
      `请修正${p.file ? ` ${p.file} 中的` : ''} notifications.webhooks[${p.i}]`,
    'doctor.notify.noWebhooks': '没有 webhook',
    'doctor.notify.desktopOnly': '告警只发送到桌面',
    'doctor.notify.dashboardOnly': '桌面通知也已关闭：告警只显示在仪表盘和 /metrics 中',
    'doctor.notify.addWebhookFix':
      '在 notifications.webhooks 下添加一个（slack、discord、telegram、feishu、dingtalk、ntfy、generic）',
    'doctor.notify.noHeartbeat': '没有心跳（heartbeat.url 为 null）',
    'doctor.notify.noHeartbeatDetail': '如果 BreakerBar 自身停止，本机以外没有任何东西会察觉',
    'doctor.notify.noHeartbeatFix': '把 heartbeat.url 设为一个推送式监控（healthchecks.io、Uptime Kuma）',
    'doctor.notify.heartbeat': (p: { kind: string; url: string; intervalSec: number }) =>
      `心跳（${p.kind}）→ ${p.url}，每 ${p.intervalSec} 秒`,
    'doctor.notify.noPush': '还没有推送记录',
    'doctor.notify.noPushFix': '请启动守护进程（`breakerbar daemon`）',
    'doctor.notify.pushFailed': (p: { age: number; error: string | null }) =>
      `${p.age} 秒前的上次推送失败：${p.error ?? '未知错误'}`,
    'doctor.notify.pushFailedFix': '请检查 heartbeat.url，以及本机能否访问它',
    'doctor.notify.pushStale': (p: { age: number }) => `${p.age} 秒前的上次推送已送达，但此后再没有推送`,
    'doctor.notify.pushStaleFix': '守护进程在运行吗？（`breakerbar status`）',
    'doctor.notify.pushOk': (p: { age: number; status: string }) => `${p.age} 秒前的上次推送已送达（状态 ${p.status}）`,
    'doctor.openclaw.version': (p: { version: string }) => `OpenClaw ${p.version}`,
    'doctor.openclaw.versionFrom': (p: { binary: string; how: 'package' | 'cli' }) =>
      `${p.binary}，版本取自${p.how === 'package' ? '其 package.json' : ' `openclaw --version`'}`,
    'doctor.openclaw.versionUnknown': 'OpenClaw 版本未知',
    'doctor.openclaw.noCli': 'PATH 和常见安装位置中都没有 openclaw CLI',
    'doctor.openclaw.from': (p: { source: StateSource }) => `来自${zhStateSource(p.source)}`,
    'doctor.openclaw.fromWithOthers': (p: { source: StateSource; others: string[] }) =>
      `来自${zhStateSource(p.source)}${p.others.length > 0 ? `；这里还有其他 OpenClaw 状态目录：${p.others.join('、')}` : ''}`,
    'doctor.openclaw.noStateFix':
      '请启动一次网关（`openclaw gateway start`）让它创建状态目录，或把 BreakerBar 配置中的 openclawDir（或 OPENCLAW_STATE_DIR）指向正确的位置',
    'doctor.openclaw.stateMissing': (p: { dir: string }) => `OpenClaw 状态目录 ${p.dir} 不存在`,
    'doctor.openclaw.stateDenied': (p: { dir: string }) => `无法访问 OpenClaw 状态目录 ${p.dir}（权限被拒绝）`,
    'doctor.openclaw.stateUnusable': (p: { dir: string; code: string }) =>
      `无法使用 OpenClaw 状态目录 ${p.dir}（${p.code}）`,
    'doctor.openclaw.notDirectory': (p: { dir: string }) => `${p.dir} 不是目录`,
    'doctor.openclaw.stateDir': (p: { dir: string }) => `状态目录 ${p.dir}`,
    'doctor.openclaw.stateUnreadable': (p: { dir: string; denied: boolean }) =>
      `无法读取 OpenClaw 状态目录 ${p.dir}${p.denied ? '（权限被拒绝）' : ''}`,
    'doctor.openclaw.profileMismatch': (p: { profile: string; dir: string }) =>
      `已设置配置档“${p.profile}”，但状态目录是 ${p.dir}`,
    'doctor.openclaw.profileMismatchDetail': (p: { profile: string; expected: string }) =>
      `以 --profile ${p.profile} 启动的网关把状态保存在 ~/${p.expected}`,
    'doctor.openclaw.profileMismatchFix': (p: { expected: string }) =>
      `请在 BreakerBar 配置中把 openclawDir 设为 ~/${p.expected}`,
    'doctor.openclaw.profile': (p: { profile: string }) => `配置档“${p.profile}”`,
    'doctor.openclaw.profileDetail': (p: { profile: string }) =>
      `网关日志 openclaw-${p.profile}-YYYY-MM-DD.log，服务 ai.openclaw.${p.profile} / openclaw-gateway-${p.profile}.service`,
    'doctor.openclaw.configUnusable': 'openclaw.json 无法使用',
    'doctor.openclaw.configUnusableFix':
      '请按消息所指修正它（网关读取的是同一个文件）；在此之前 BreakerBar 使用默认设置',
    'doctor.openclaw.configRead': (p: { path: string }) => `已读取 openclaw.json：${p.path}`,
    'doctor.openclaw.noConfig': (p: { path: string }) => `${p.path} 处没有 openclaw.json`,
    'doctor.openclaw.noConfigDetail': 'OpenClaw 将使用默认设置（端口 18789）；可用 OPENCLAW_CONFIG_PATH 指定其他文件',
    'doctor.openclaw.facts': (p: { port: string | null; primary: string | null; fallbacks: number | null }) =>
      [
        p.port === null ? '' : `gateway.port ${p.port}`,
        p.primary === null ? '' : `主模型 ${p.primary}`,
        p.fallbacks === null ? '' : `${p.fallbacks} 个备用模型`,
      ]
        .filter((x) => x !== '')
        .join('，'),
    'doctor.log.without': ZH_WITHOUT,
    'doctor.log.trustWhy':
      '能写入该目录的人就能写入 BreakerBar 据以行动的网关日志行（一场风暴、它要求的一次重启）；OpenClaw 自己只在安全时才把日志写到这样的目录，否则改用你自己的目录',
    'doctor.log.trustFix': (p: { dir: string }) =>
      `删除 ${p.dir} 让网关重新创建它，或把 OpenClaw 的 logging.file 指向你自己的目录（gatewayLogDir 也随之修改）`,
    'doctor.log.otherOwner': (p: { dir: string; uid: number }) => `网关日志目录 ${p.dir} 属于其他用户（uid ${p.uid}）`,
    'doctor.log.worldWritable': (p: { dir: string }) => `网关日志目录 ${p.dir} 所有用户都可写入`,
    'doctor.log.loggingFile': (p: { file: string; dir: string }) =>
      `openclaw.json 把 logging.file 设为 ${p.file}，但 BreakerBar 在 ${p.dir} 中读取网关日志`,
    'doctor.log.loggingFileFix': (p: { dir: string; prefix: string }) =>
      `请在 BreakerBar 配置中把 gatewayLogDir 设为 ${p.dir}（它会跟踪其中的 ${p.prefix}-YYYY-MM-DD.log 文件）`,
    'doctor.log.dirMissing': (p: { dir: string }) => `网关日志目录 ${p.dir} 不存在`,
    'doctor.log.dirMissingDetail': `${ZH_WITHOUT}；/tmp 在开机时会被清空，直到网关再次写日志`,
    'doctor.log.dirMissingFix': '请启动网关（它写第一行日志时会创建该目录），或把 gatewayLogDir 设为它写日志的位置',
    'doctor.log.dirDenied': (p: { dir: string }) => `无法访问网关日志目录 ${p.dir}（权限被拒绝）`,
    'doctor.log.dirUnusable': (p: { dir: string; code: string }) => `无法使用网关日志目录 ${p.dir}（${p.code}）`,
    'doctor.log.notDirectory': (p: { dir: string }) => `网关日志目录 ${p.dir} 不是目录`,
    'doctor.log.notDirectoryFix': '请把 gatewayLogDir 设为网关日志所在的目录',
    'doctor.log.cannotList': (p: { dir: string; code: string }) =>
      `无法列出网关日志目录 ${p.dir}${p.code === 'EACCES' || p.code === 'EPERM' ? '（权限被拒绝）' : `（${p.code}）`}`,
    'doctor.log.notFile': (p: { path: string }) => `今天的网关日志 ${p.path} 不是普通文件`,
    'doctor.log.notFileDetail': `它会被跳过，从不打开（那里的命名管道会卡住读取它的程序）；${ZH_WITHOUT}`,
    'doctor.log.notFileFix': '请删除它；网关写下一行日志时会重新创建日志文件',
    'doctor.log.today': (p: { path: string }) => `今天的网关日志 ${p.path}`,
    'doctor.log.todayDenied': (p: { path: string }) => `今天的网关日志 ${p.path} 无法读取（权限被拒绝）`,
    'doctor.log.noneToday': (p: { date: string; dir: string }) => `${p.dir} 中没有今天（${p.date}）的网关日志`,
    'doctor.log.noneTodayDetail': (p: { newest: string | null; prefix: string; dir: string; others: string[] }) =>
      [
        p.newest ? `这里最新的是 ${p.newest}` : `${p.dir} 中没有 ${p.prefix}-YYYY-MM-DD.log 文件`,
        p.others.length > 0 ? `这里有配置档 ${p.others.join('、')} 的日志` : '',
        ZH_WITHOUT,
      ]
        .filter((s) => s !== '')
        .join('；'),
    'doctor.log.noneTodayFix': (p: { profile: string | null }) =>
      p.profile !== null
        ? `如果网关以 --profile 运行，请在 BreakerBar 配置中设置 profile（例如“${p.profile}”）`
        : '网关在运行吗？（`openclaw gateway status`）；如果它把日志写在别处（logging.file），请设置 gatewayLogDir',
    'doctor.bb.version': (p: { version: string; node: string; platform: string }) =>
      `BreakerBar ${p.version}，运行于 Node ${p.node}（${p.platform}）`,
    'doctor.bb.noDataDir': (p: { dir: string }) => `还没有数据目录（${p.dir}）`,
    'doctor.bb.noDataDirDetail': '守护进程第一次启动时会创建它及其中的数据库',
    'doctor.bb.startFix': '请启动它：`breakerbar daemon`，或用 `breakerbar service install` 在后台运行',
    'doctor.bb.dataDirUnusable': (p: { dir: string; code: string }) => `无法使用数据目录 ${p.dir}（${p.code}）`,
    'doctor.bb.dataDirFix': '请把 dataDir 设为 BreakerBar 可以写入的目录',
    'doctor.bb.database': (p: { path: string }) => `数据库 ${p.path}`,
    'doctor.bb.noDatabase': (p: { path: string }) => `还没有数据库（${p.path}）`,
    'doctor.bb.noDatabaseDetail': '守护进程第一次启动时会创建它',
    'doctor.bb.noDatabaseFix': '请启动它：`breakerbar daemon`，或 `breakerbar service install`',
    'doctor.bb.lockUnknown': '无法判断守护进程是否在运行',
    'doctor.bb.noDaemon': (p: { dir: string }) => `没有为 ${p.dir} 运行的 BreakerBar 守护进程`,
    'doctor.bb.leftover': (p: { file: string }) => `${p.file} 是之前运行留下的`,
    'doctor.bb.daemon': (p: { pid: number | null }) => `守护进程正在运行${p.pid !== null ? `（pid ${p.pid}）` : ''}`,
    'doctor.bb.forDir': (p: { dir: string }) => `数据目录 ${p.dir}`,
    'doctor.bb.apiUnknown': '守护进程的 API 地址未知',
    'doctor.bb.apiUnknownDetail': (p: { file: string }) =>
      `server.port 为 0（启动时选择），且守护进程没有写入 ${p.file}`,
    'doctor.bb.apiUnknownFix': '请把 server.port 设为固定端口，或升级正在运行的守护进程',
    'doctor.bb.api': (p: { url: string }) => `API 在 ${p.url} 应答`,
    'doctor.bb.apiDetail': (p: { file: string | null; latencyMs: number }) =>
      `${p.file ? `地址取自 ${p.file}` : '地址取自 server.host 和 server.port'}；/healthz 耗时 ${p.latencyMs} 毫秒`,
    'doctor.bb.apiDown': (p: { url: string; what: string }) => `守护进程的 API 在 ${p.url} 没有应答（${p.what}）`,
    'doctor.bb.apiDownDetail': (p: { file: string | null }) =>
      p.file
        ? `地址取自 ${p.file}；守护进程在运行，但它的 API 无法访问：托盘应用和仪表盘都连不上它`
        : '地址取自 server.host 和 server.port；以 --port 启动的守护进程监听在别处',
    'doctor.bb.apiDownFix': (p: { written: boolean }): string =>
      p.written
        ? '请查看守护进程的日志（`breakerbar service status`），然后重启它'
        : '请升级守护进程（新版本会写入 api-url），或检查 server.port 和 --port',
    'doctor.bb.noStatus': '无法向守护进程询问各数据源的读取情况',
    'doctor.bb.folded': (p: { folded: number; max: number }) =>
      `超出上限 ${p.max} 的 ${p.folded} 个依赖被计入 <provider>/other`,
    'doctor.bb.foldedDetail': '它们都没有自己的熔断器和指标（可能是客户端编造了模型名，或确实有很多模型）',
    'doctor.bb.foldedFix': '如果它们是真实的模型，请调高 breakers.maxDependencies 并重启守护进程',
    'doctor.bb.readerProblem': (p: { kind: string; error: string }) => `${p.kind} 读取器出现问题：${p.error}`,
    'doctor.bb.readerCounts': (p: { inputs: number; stored: number }) =>
      `守护进程启动以来 ${p.inputs} 个输入，已存储 ${p.stored} 次调用`,
    'doctor.bb.readerProblemFix': '请查看上面的数据源检查结果和守护进程的日志；问题消除后它会自行重试',
    'doctor.bb.readerLive': (p: { kind: string; inputs: number; stored: number }) =>
      `${p.kind} 读取器运行中：${p.inputs} 个输入，已存储 ${p.stored} 次调用`,
    'doctor.bb.readerLiveDetail': (p: { agoMs: number | null; pending: number }, f: Formatters) =>
      `${p.agoMs === null ? '还没有读到任何内容' : `最新记录在 ${f.duration(p.agoMs)}前`}；${p.pending} 条待处理`,
    'doctor.bb.full': (p: { forMs: number | null }, f: Formatters) =>
      `守护进程${p.forMs === null ? '' : `已有 ${f.duration(p.forMs)} `}没有空间存储数据`,
    'doctor.bb.fullDetail': (p: { detail: string | null; refused: number }) =>
      `${p.detail ?? '磁盘已满'}；${p.refused} 次写入被拒绝；在此之前新的调用不会进入任何熔断器`,
    'doctor.bb.fullFix': (p: { dir: string }) =>
      `请释放 ${p.dir} 所在磁盘的空间（\`df -h ${p.dir}\`）：几秒内会自动恢复存储`,
    'doctor.bb.replaced': (p: { problem: string }) =>
      `守护进程运行时它的数据库被${p.problem === 'deleted' ? '删除' : '替换'}了`,
    'doctor.bb.restartFix': '请重启 BreakerBar',
    'doctor.bb.diskLow': (p: { dir: string; free: string }) => `${p.dir} 所在的磁盘快满了（剩余 ${p.free}）`,
    'doctor.bb.diskLowDetail': '没有空间时守护进程仍会运行，但不再存储任何新数据，熔断器和风暴检查也就看不到新情况',
    'doctor.bb.diskLowFix': (p: { dir: string }) => `请释放那里的空间（\`df -h ${p.dir}\`），或把 dataDir 设到其他磁盘`,
    'doctor.checkFailed': '这项检查意外失败',
    'doctor.checkFailedFix': '请附上这份输出报告问题',
  },
);
