/** `breakerbar status` as text: OpenClaw's own cooldowns beside the breakers. */
import { describe, expect, it } from 'vitest';
import { headline, headlineText } from '../../main/api/headline.js';
import { cooldownLines, renderStatus } from '../../main/cli/status.js';
import type { OpenClawCooldownsStatus } from '../../main/core/openclaw/cooldowns.js';
import { languageOf } from '../../main/core/runtime/language.js';
import { translator } from '../../main/words/messages/index.js';
import { apiStatus, breaker, gateway, MIN, NOW, probe, restartRow, source, watchdog } from '../app/fixtures.js';
import { englishSentences } from '../helpers/english-sentences.js';

const COOLDOWNS: OpenClawCooldownsStatus = {
  active: [
    {
      dep: 'zhipu/glm-5.1',
      provider: 'zhipu',
      model: 'glm-5.1',
      profile: 'zhipu:default',
      kind: 'cooldown',
      until: NOW + 4 * MIN,
      reason: 'rate_limit',
      errorCount: 3,
      failures: 3,
      lastFailureAt: NOW - MIN,
    },
    {
      dep: 'moonshot',
      provider: 'moonshot',
      model: null,
      profile: 'moonshot:default',
      kind: 'disabled',
      until: NOW + 150 * MIN,
      reason: 'billing',
      errorCount: 1,
      failures: 1,
      lastFailureAt: NOW,
    },
  ],
  databases: [
    { path: 'state/openclaw.sqlite', profiles: 2, error: null },
    { path: 'agents/ops/agent/openclaw-agent.sqlite', profiles: 0, error: 'auth state: not JSON (Unexpected end)' },
  ],
  checkedAt: NOW,
};

describe('breakerbar status', () => {
  it('adds an OpenClaw cooldown column to the breakers, and a line per cooldown and unreadable database', () => {
    const text = renderStatus(
      apiStatus({
        breakers: [
          breaker('zhipu/glm-5.1', {
            openclawCooldown: {
              until: NOW + 4 * MIN,
              reason: 'rate_limit',
              profile: 'zhipu:default',
              kind: 'cooldown',
            },
          }),
          breaker('deepseek/deepseek-v4-pro'),
        ],
        openclawCooldowns: COOLDOWNS,
      }),
      NOW,
    );
    expect(text).toContain('OpenClaw cooldown');
    expect(text).toMatch(/zhipu\/glm-5\.1\s+closed\s+10\s+0%\s+4 min left \(rate_limit\)/);
    expect(text).toContain('OpenClaw cooldown zhipu/glm-5.1: 4 min left (rate_limit), profile zhipu:default, 3 errors');
    expect(text).toContain('OpenClaw disabled moonshot: 2 h 30 min left (billing), profile moonshot:default, 1 error');
    expect(text).toContain(
      'OpenClaw cooldown state agents/ops/agent/openclaw-agent.sqlite not fully read: auth state: not JSON (Unexpected end)',
    );
  });

  it('says nothing about OpenClaw cooldowns when there are none', () => {
    const text = renderStatus(apiStatus({ openclawCooldowns: { active: [], databases: [], checkedAt: NOW } }), NOW);
    expect(text).not.toContain('OpenClaw');
    expect(cooldownLines(apiStatus(), NOW)).toEqual([]);
  });
});

describe('breakerbar status opens with the headline', () => {
  it('says the headline first, then the sections', () => {
    const status = apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'open', reason: 'server errors' })] });
    const lines = renderStatus(status, NOW).split('\n');
    expect(lines[0]).toBe(headlineText(headline(status, NOW), translator('en')));
    expect(lines[0]).toMatch(/^zhipu\/glm-5\.1 failing since /);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe(`BreakerBar ${status.version}`);
    expect(lines[3]).toMatch(/^Gateway {4}http/);
    expect(lines[4]).toMatch(/^Watchdog {3}active; 429 checks /);
  });

  it('speaks Chinese with LANG=zh_CN.UTF-8 and ui.language auto', () => {
    const language = languageOf({ ui: { language: 'auto' } }, { LANG: 'zh_CN.UTF-8' });
    expect(language).toBe('zh-CN');
    const zh = translator(language);
    const status = apiStatus({
      breakers: [
        breaker('zhipu/glm-5.1', {
          openclawCooldown: { until: NOW + 4 * MIN, reason: 'rate_limit', profile: 'zhipu:default', kind: 'cooldown' },
        }),
        breaker('deepseek/deepseek-v4-pro', { state: 'open', openUntil: NOW + 3 * MIN }),
      ],
      openclawCooldowns: COOLDOWNS,
    });
    const text = renderStatus(status, NOW, zh);
    const lines = text.split('\n');
    expect(lines[0]).toBe(headlineText(headline(status, NOW), zh));
    expect(lines[0]).toContain('起调用失败');
    expect(text).toMatch(/^网关 {7}http/m);
    expect(text).toMatch(/^看门狗 {5}运行中；429 检查 0\/3/m);
    expect(text).toMatch(/^依赖\s+状态\s+调用\s+失败率\s+到期\s+OpenClaw 冷却$/m);
    expect(text).toContain(`deepseek/deepseek-v4-pro  断开`);
    expect(text).toContain(`${zh.duration(3 * MIN)}后`);
    expect(text).toContain(
      `OpenClaw 冷却 zhipu/glm-5.1：剩余 ${zh.duration(4 * MIN)}（rate_limit），配置档 zhipu:default，3 次错误`,
    );
    expect(text).toContain('未能完整读取 OpenClaw 冷却状态 agents/ops/agent/openclaw-agent.sqlite');
    // Nothing of the English chrome is left.
    expect(text).not.toMatch(/\b(Gateway|Watchdog|dependency|left|profile|Restarts via)\b/);
  });

  it('keeps English with ui.language en whatever the locale says', () => {
    expect(languageOf({ ui: { language: 'en' } }, { LANG: 'zh_CN.UTF-8' })).toBe('en');
    expect(languageOf({ ui: { language: 'auto' } }, { LC_ALL: 'en_US.UTF-8', LANG: 'zh_CN.UTF-8' })).toBe('en');
  });
});

describe("breakerbar status names the gateway's owner", () => {
  const stoppedItself = watchdog({
    seenHealthy: false,
    verified: {
      runnable: false,
      problem: 'OpenClaw stopped itself: …',
      service: 'parked',
      owner: {
        owner: 'launchd',
        name: 'LaunchAgent ai.openclaw.gateway',
        pid: null,
        evidence: [
          'LaunchAgent ai.openclaw.gateway: loaded but not running',
          'exit 78: OpenClaw stopped the gateway itself',
        ],
        supervisor: null,
        stoppedItself: true,
      },
      ownerBlock: {
        rule: 'stopped_itself',
        owner: 'launchd',
        who: 'LaunchAgent ai.openclaw.gateway',
        reason: 'OpenClaw stopped itself: …',
      },
    },
  });
  const down = gateway({ last: probe({ class: 'refused', dead: true, ok: false, detail: 'connection refused' }) });

  it('a gateway OpenClaw stopped itself: the owner line, why there is no restart, and the headline says it', () => {
    const status = apiStatus({ gateway: down, watchdog: stoppedItself });
    const text = renderStatus(status, NOW);
    expect(text).toContain('Gateway owner: launchd (LaunchAgent ai.openclaw.gateway)');
    expect(text).toContain(
      'no automatic restart: OpenClaw stopped itself (its database schema is newer than the gateway, exit 78); upgrade OpenClaw',
    );
    expect(text).not.toContain('never seen healthy');
    expect(headlineText(headline(status, NOW), translator('en'))).toContain(
      'no automatic restart: OpenClaw stopped itself (its database schema is newer, exit 78); upgrade OpenClaw',
    );
    const zh = renderStatus(status, NOW, translator('zh-CN'));
    expect(zh).toContain('网关归属：launchd（LaunchAgent ai.openclaw.gateway）');
    expect(zh).toContain('OpenClaw 已自行停止');
  });

  it('an external supervisor is named, and a foreground process by its pid', () => {
    const external = renderStatus(
      apiStatus({
        watchdog: watchdog({
          verified: {
            runnable: false,
            problem: 'the gateway runs under an external supervisor …',
            service: 'none',
            owner: {
              owner: 'external-supervisor',
              name: 'supervisord (pid 812)',
              pid: 4242,
              evidence: [],
              supervisor: 'supervisord (pid 812)',
              stoppedItself: false,
            },
            ownerBlock: {
              rule: 'external_supervisor',
              owner: 'external-supervisor',
              who: 'supervisord (pid 812)',
              reason: '…',
            },
          },
        }),
      }),
      NOW,
    );
    expect(external).toContain('Gateway owner: an external supervisor: supervisord (pid 812)');
    expect(external).toContain('no automatic restart: the external supervisor restarts the gateway');
    const foreground = renderStatus(
      apiStatus({
        watchdog: watchdog({
          verified: {
            runnable: true,
            problem: null,
            service: 'none',
            owner: {
              owner: 'foreground',
              name: 'a process nobody supervises (pid 4242)',
              pid: 4242,
              evidence: [],
              supervisor: null,
              stoppedItself: false,
            },
            ownerBlock: null,
          },
        }),
      }),
      NOW,
    );
    expect(foreground).toContain('Gateway owner: a process nobody supervises (pid 4242)');
  });

  it('says when nothing was read from OpenClaw, and where it looked, instead of an empty table', () => {
    const empty = apiStatus({
      breakers: [],
      sources: [
        source({ calls: 0, roots: ['/home/me/.openclaw/agents'] }),
        source({ kind: 'sqlite', calls: 0, roots: ['/home/me/.openclaw/agents'] }),
        source({ kind: 'gatewaylog', calls: 0, roots: ['/tmp/openclaw'] }),
        source({ kind: 'gatewaymetrics', calls: 0, roots: ['http://127.0.0.1:18789/api/diagnostics/prometheus'] }),
      ],
    });
    const text = renderStatus(empty, NOW);
    expect(text).toContain(
      'Nothing read from OpenClaw yet: no model call in /home/me/.openclaw/agents, /tmp/openclaw. Is OpenClaw installed here',
    );
    expect(text).toContain('`breakerbar doctor`');
    expect(text).not.toContain('No dependencies seen yet.');
    expect(renderStatus(empty, NOW, translator('zh-CN'))).toContain('尚未从 OpenClaw 读取到任何内容');
    // Calls read but no breaker yet (all too old to count): not "nothing read".
    const read = renderStatus({ ...empty, sources: [source({ calls: 3 })] }, NOW);
    expect(read).toContain('No dependencies seen yet.');
    expect(read).not.toContain('Nothing read from OpenClaw');
  });
});

describe('breakerbar status in Chinese: reasons and probe details worded from their codes', () => {
  /** A run of three lowercase English words: an English sentence left in a Chinese line. */
  const zh = translator('zh-CN');
  const refused = probe({
    class: 'refused',
    dead: true,
    ok: false,
    detail: 'connection refused on 127.0.0.1:18789',
    found: { code: 'refused', where: '127.0.0.1:18789' },
  });
  const manualRestart = restartRow({
    trigger: 'manual',
    reason: 'restart requested by the user',
    why: { code: 'manual', note: null },
    evidence: 'manual',
  });
  const status = apiStatus({
    gateway: gateway({ last: refused, upSince: null, downSince: NOW - MIN }),
    watchdog: watchdog({ lastRestart: manualRestart }),
  });
  const lineWith = (text: string, start: string) => text.split('\n').find((line) => line.startsWith(start)) ?? '';

  it('words the last probe and the last restart in Chinese, with no English sentence left', () => {
    const text = renderStatus(status, NOW, zh);
    const gatewayLine = lineWith(text, '网关 ');
    const restartLine = lineWith(text, '上次重启');
    expect(gatewayLine).toContain('127.0.0.1:18789 拒绝连接');
    expect(restartLine).toContain('用户请求重启');
    for (const line of [gatewayLine, restartLine]) expect(englishSentences(line)).toEqual([]);
  });

  it('keeps the English lines as they were', () => {
    const text = renderStatus(status, NOW);
    expect(text).toContain('(connection refused on 127.0.0.1:18789, ');
    expect(text).toContain('(manual: restart requested by the user): recovered');
  });

  it('a row without its code (an older BreakerBar) shows its line', () => {
    const old = apiStatus({
      watchdog: watchdog({ lastRestart: restartRow({ reason: 'an old line kept as stored' }) }),
    });
    expect(lineWith(renderStatus(old, NOW, zh), '上次重启')).toContain('an old line kept as stored');
  });
});
