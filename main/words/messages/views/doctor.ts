/**
 * The Doctor view's words: its heading, the summary of the findings, and the
 * names of finding levels and areas.
 */
import { area } from '../area.js';

export const doctorView = area(
  {
    'views.doctor.tab': 'Doctor',
    'views.doctor.heading': 'Doctor',
    'views.doctor.checking': 'Checking…',
    'views.doctor.failed': 'The checks could not run',
    'views.doctor.again': 'Check again',
    'views.doctor.blocking':
      'BreakerBar cannot watch OpenClaw yet. Here is what it looked for, where, and how to fix it.',
    'views.doctor.nothingRead':
      'Nothing has been read yet: no model calls in any source. Here is what BreakerBar looked for and where.',
    'views.doctor.summary': (p: { error: number; warn: number; ok: number }, f) =>
      `${f.plural(p.error, { one: '# error', other: '# errors' })}, ${f.plural(p.warn, { one: '# warning', other: '# warnings' })}, ${f.integer(p.ok)} ok.`,
    'views.doctor.fix': 'Fix: ',
    'views.doctor.level.error': 'error',
    'views.doctor.level.warn': 'warning',
    'views.doctor.level.info': 'info',
    'views.doctor.level.ok': 'ok',
    'views.doctor.area.config': 'Configuration',
    'views.doctor.area.openclaw': 'OpenClaw',
    'views.doctor.area.sources': 'Sources',
    'views.doctor.area.gateway': 'Gateway',
    'views.doctor.area.restart': 'Restarts',
    'views.doctor.area.notifications': 'Notifications',
    'views.doctor.area.breakerbar': 'BreakerBar',
  },
  {
    'views.doctor.tab': '诊断',
    'views.doctor.heading': '诊断',
    'views.doctor.checking': '正在检查…',
    'views.doctor.failed': '检查无法运行',
    'views.doctor.again': '重新检查',
    'views.doctor.blocking': 'BreakerBar 还无法监视 OpenClaw。以下是它查找了什么、在哪里查找，以及如何修复。',
    'views.doctor.nothingRead':
      '尚未读取到任何内容：所有数据源中都没有模型调用。以下是 BreakerBar 查找了什么、在哪里查找。',
    'views.doctor.summary': (p: { error: number; warn: number; ok: number }, f) =>
      `${f.integer(p.error)} 个错误，${f.integer(p.warn)} 个警告，${f.integer(p.ok)} 项正常。`,
    'views.doctor.fix': '修复：',
    'views.doctor.level.error': '错误',
    'views.doctor.level.warn': '警告',
    'views.doctor.level.info': '信息',
    'views.doctor.level.ok': '正常',
    'views.doctor.area.config': '配置',
    'views.doctor.area.openclaw': 'OpenClaw',
    'views.doctor.area.sources': '数据源',
    'views.doctor.area.gateway': '网关',
    'views.doctor.area.restart': '重启',
    'views.doctor.area.notifications': '通知',
    'views.doctor.area.breakerbar': 'BreakerBar 本身',
  },
);
