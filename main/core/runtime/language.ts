/**
 * The language the daemon, the CLI and the tray speak: the config's
 * `ui.language`, else the system's (POSIX locale variables in their order of
 * precedence, then the host's own locale, e.g. Electron's `app.getLocale()`).
 */
import { type Language, resolveLanguage } from '../../words/i18n.js';
import type { Config } from '../config/index.js';

export function languageOf(config: Pick<Config, 'ui'>, env: NodeJS.ProcessEnv, hostLocale?: string | null): Language {
  return resolveLanguage([config.ui.language, env.LC_ALL, env.LC_MESSAGES, env.LANG, hostLocale]);
}
