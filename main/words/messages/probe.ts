/**
 * What a health probe of the gateway found (main/words/probe-details.ts), as the dashboard words a stored
 * probe or a decision that quotes one. Addresses, paths, statuses and the operating system's error messages
 * are facts shown as they are.
 */
import type { Formatters as F } from '../i18n.js';
import { area } from './area.js';

type Startupz = { startupz: number | null };

export const probe = area(
  {
    'probe.refused': (p: { where: string }) => `Connection refused on ${p.where}`,
    'probe.connectTimeout': (p: { where: string; ms: number }, f: F) =>
      `No connection to ${p.where} within ${f.duration(p.ms, 'precise')} (connect timeout)`,
    'probe.readTimeout': (p: { path: string; ms: number }, f: F) =>
      `No answer to ${p.path} within ${f.duration(p.ms, 'precise')} (read timeout)`,
    'probe.reset': (p: { where: string; path: string }) => `Connection reset by ${p.where} during ${p.path}`,
    'probe.failed': (p: { where: string; path: string; message: string }) =>
      `${p.path} on ${p.where} failed: ${p.message}`,
    'probe.notUrl': (p: { url: string }) => `The gateway address is not a URL: ${JSON.stringify(p.url)}`,
    'probe.notHttp': (p: { protocol: string }) => `Only plain http on loopback is probed, not ${p.protocol}//`,
    'probe.delayed': (p: { ms: number }, f: F) =>
      `Probe delayed by BreakerBar's own event loop (${f.duration(p.ms, 'precise')}): gateway state unknown`,
    'probe.starting': (p: Startupz) =>
      `Starting (${p.startupz === null ? 'no /startupz answer' : `/startupz ${p.startupz}`})`,
    'probe.draining': (p: Startupz) =>
      `Draining (${p.startupz === null ? 'no /startupz answer' : `/startupz ${p.startupz}`})`,
    'probe.live': (p: { ms: number }, f: F) => `Live (/healthz 200 in ${f.duration(p.ms)})`,
    'probe.then': (p: { what: string }) => `, ${p.what}`,
    'probe.started': 'started',
    'probe.olderGateway': 'no /startupz (older gateway)',
    'probe.startupUnknown': (p: Startupz) =>
      `startup unknown (${p.startupz === null ? 'no /startupz answer' : `/startupz ${p.startupz}`})`,
    'probe.notOpenClaw': (p: { status: number }) =>
      `/healthz answered HTTP ${p.status} without OpenClaw's JSON: something else listens there`,
    'probe.http': (p: { status: number }) => `/healthz answered HTTP ${p.status}`,
    'probe.notReady': '; not ready',
    'probe.notReadyNamed': (p: { failing: string[] }, f: F) => `; not ready: ${f.list(p.failing)}`,
    'probe.threw': (p: { message: string }) => `The probe failed: ${p.message}`,
  },
  {
    'probe.refused': (p: { where: string }) => `${p.where} 拒绝连接`,
    'probe.connectTimeout': (p: { where: string; ms: number }, f: F) =>
      `${f.duration(p.ms, 'precise')}内未能连接 ${p.where}（连接超时）`,
    'probe.readTimeout': (p: { path: string; ms: number }, f: F) =>
      `${p.path} 在 ${f.duration(p.ms, 'precise')}内没有应答（读取超时）`,
    'probe.reset': (p: { where: string; path: string }) => `请求 ${p.path} 时 ${p.where} 重置了连接`,
    'probe.failed': (p: { where: string; path: string; message: string }) =>
      `${p.where} 上的 ${p.path} 请求失败：${p.message}`,
    'probe.notUrl': (p: { url: string }) => `网关地址不是有效的 URL：${JSON.stringify(p.url)}`,
    'probe.notHttp': (p: { protocol: string }) => `只探测回环地址上的普通 http，不探测 ${p.protocol}//`,
    'probe.delayed': (p: { ms: number }, f: F) =>
      `探测被 BreakerBar 自身的事件循环延误（${f.duration(p.ms, 'precise')}）：网关状态未知`,
    'probe.starting': (p: Startupz) =>
      `正在启动（${p.startupz === null ? '/startupz 无应答' : `/startupz ${p.startupz}`}）`,
    'probe.draining': (p: Startupz) =>
      `正在收尾（${p.startupz === null ? '/startupz 无应答' : `/startupz ${p.startupz}`}）`,
    'probe.live': (p: { ms: number }, f: F) => `存活（/healthz 200，用时 ${f.duration(p.ms)}）`,
    'probe.then': (p: { what: string }) => `，${p.what}`,
    'probe.started': '已启动',
    'probe.olderGateway': '没有 /startupz（较旧的网关）',
    'probe.startupUnknown': (p: Startupz) =>
      `启动状态未知（${p.startupz === null ? '/startupz 无应答' : `/startupz ${p.startupz}`}）`,
    'probe.notOpenClaw': (p: { status: number }) =>
      `/healthz 返回 HTTP ${p.status}，但不是 OpenClaw 的 JSON：该地址上是别的服务`,
    'probe.http': (p: { status: number }) => `/healthz 返回 HTTP ${p.status}`,
    'probe.notReady': '；未就绪',
    'probe.notReadyNamed': (p: { failing: string[] }, f: F) => `；未就绪：${f.list(p.failing)}`,
    'probe.threw': (p: { message: string }) => `探测出错：${p.message}`,
  },
);
