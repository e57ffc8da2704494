/**
 * The dashboard's Logs, Settings, Errors and Doctor views: their own words
 * (headings, filters, buttons, summaries), the names of what the core records
 * (restart results, watchdog decisions, probe classes, notice kinds), and the
 * settings' plain-language labels, one per config key (`views.settings.<path>.label`).
 * One area, declared a topic per module under views/ and joined here in that
 * order, so the catalogue holds the same keys in the same order as one list.
 */
import { area } from './area.js';
import { doctorView } from './views/doctor.js';
import { errorsView } from './views/errors.js';
import { logRecordNames } from './views/log-records.js';
import { logsView } from './views/logs.js';
import { settingLabels } from './views/setting-labels.js';
import { settingsView } from './views/settings.js';

export const views = area(
  {
    // Shared by the four views.
    'views.failure': (p: { what: string; why: string }) => `${p.what}: ${p.why}`,
    'views.failure.noToken': 'Not sent: no API token was given.',
    'views.tryAgain': 'Try again',
    'views.none': '—',

    ...logsView.en,
    ...logRecordNames.en,
    ...settingsView.en,
    ...settingLabels.en,
    ...errorsView.en,
    ...doctorView.en,
  },
  {
    'views.failure': (p: { what: string; why: string }) => `${p.what}：${p.why}`,
    'views.failure.noToken': '未发送：没有提供 API 令牌。',
    'views.tryAgain': '重试',
    'views.none': '—',

    ...logsView['zh-CN'],
    ...logRecordNames['zh-CN'],
    ...settingsView['zh-CN'],
    ...settingLabels['zh-CN'],
    ...errorsView['zh-CN'],
    ...doctorView['zh-CN'],
  },
);
