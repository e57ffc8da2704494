/**
 * Confirming a dangerous settings change (one that runs a command, opens the API to the network or
 * sends data elsewhere): the app's native dialog, the code the daemon sends to the desktop, and the
 * dashboard's prompt for that code in a browser.
 */
import type { Formatters } from '../i18n.js';
import { area } from './area.js';

type Change = { key: string; change: 'added' | 'changed' | 'removed'; from: string | null; to: string | null };

export const confirm = area(
  {
    // One line per change, in the dialog and in the prompt.
    'confirm.change': (p: Change) =>
      p.change === 'added'
        ? `${p.key}: add ${p.to}`
        : p.change === 'removed'
          ? `${p.key}: remove ${p.from}`
          : `${p.key}: ${p.from} → ${p.to}`,
    // The app's native dialog (default button: cancel).
    'confirm.dialog.title': 'Confirm settings change',
    'confirm.dialog.message': 'Save settings that can run commands or send data elsewhere?',
    'confirm.dialog.detail': (p: { lines: string }) =>
      `The dashboard asks to change:\n${p.lines}\n\nSave only if you are making this change yourself.`,
    'confirm.dialog.save': 'Save',
    'confirm.dialog.cancel': 'Cancel',
    'confirm.dialog.cancelled': (p: { keys: string[] }, f: Formatters) =>
      `not confirmed: the change to ${f.list(p.keys)} was cancelled, nothing was saved`,
    // The daemon's desktop notification carrying the code.
    'confirm.notify.title': 'BreakerBar: confirm a settings change',
    'confirm.notify.body': (p: { code: string; keys: string[]; validMs: number }, f: Formatters) =>
      `Code ${p.code} confirms the change to ${f.list(p.keys)} made in the dashboard (valid ${f.duration(p.validMs)}). If you did not make it, do not enter the code.`,
    // The dashboard's prompt in a browser.
    'confirm.prompt.title': 'Confirm this change',
    'confirm.prompt.intro':
      'These settings can run commands or send data elsewhere, so BreakerBar checks that a person is making the change. Enter the 6-digit code it has just shown in a desktop notification (it is also in the daemon’s log).',
    'confirm.prompt.expires': (p: { at: number }, f: Formatters) => `The code works once, until ${f.clock(p.at)}.`,
    'confirm.prompt.label': 'Confirmation code',
    'confirm.prompt.submit': 'Confirm and save',
    'confirm.prompt.cancel': 'Cancel',
    'confirm.prompt.shape': 'The code is 6 digits.',
    'confirm.prompt.refused':
      'That code was not accepted (wrong, already used or expired). Save again to get a new code.',
    'confirm.prompt.cancelled': 'Not saved: the change was not confirmed.',
  },
  {
    'confirm.change': (p: Change) =>
      p.change === 'added'
        ? `${p.key}：添加 ${p.to}`
        : p.change === 'removed'
          ? `${p.key}：移除 ${p.from}`
          : `${p.key}：${p.from} → ${p.to}`,
    'confirm.dialog.title': '确认设置更改',
    'confirm.dialog.message': '要保存可执行命令或向外发送数据的设置吗？',
    'confirm.dialog.detail': (p: { lines: string }) =>
      `仪表盘请求更改：\n${p.lines}\n\n只有在这是你本人所做的更改时才保存。`,
    'confirm.dialog.save': '保存',
    'confirm.dialog.cancel': '取消',
    'confirm.dialog.cancelled': (p: { keys: string[] }, f: Formatters) =>
      `未确认：对 ${f.list(p.keys)} 的更改已取消，没有保存任何内容`,
    'confirm.notify.title': 'BreakerBar：确认设置更改',
    'confirm.notify.body': (p: { code: string; keys: string[]; validMs: number }, f: Formatters) =>
      `验证码 ${p.code} 用于确认在仪表盘中对 ${f.list(p.keys)} 的更改（${f.duration(p.validMs)}内有效）。如果不是你本人所做的更改，请不要输入此验证码。`,
    'confirm.prompt.title': '确认此更改',
    'confirm.prompt.intro':
      '这些设置可以执行命令或向外发送数据，因此 BreakerBar 需要确认是由人在进行更改。请输入它刚刚在桌面通知中显示的 6 位验证码（守护进程的日志中也有）。',
    'confirm.prompt.expires': (p: { at: number }, f: Formatters) => `验证码只能使用一次，有效期至 ${f.clock(p.at)}。`,
    'confirm.prompt.label': '验证码',
    'confirm.prompt.submit': '确认并保存',
    'confirm.prompt.cancel': '取消',
    'confirm.prompt.shape': '验证码为 6 位数字。',
    'confirm.prompt.refused': '验证码未被接受（错误、已使用或已过期）。请重新保存以获取新的验证码。',
    'confirm.prompt.cancelled': '未保存：更改未被确认。',
  },
);
