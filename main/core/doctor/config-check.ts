/**
 * Check 1: which config file was read. A config that cannot be used is an
 * error finding, and the other checks go on with the defaults so the report
 * still says everything else it can.
 */
import {
  configSchema,
  defaultConfigPath,
  type Environment,
  type LoadedConfig,
  loadConfig,
  resolveDirectories,
} from '../config/index.js';
import { defaultsOf } from '../config/schema.js';
import { type Finding, finding } from './types.js';

export interface ConfigCheck {
  loaded: LoadedConfig;
  findings: Finding[];
}

export function checkConfig(configFile: string | undefined, environment: Environment): ConfigCheck {
  try {
    const loaded = loadConfig(configFile, environment);
    const findings = loaded.file
      ? [finding('config', 'ok', `config file ${loaded.file}`)]
      : [
          finding(
            'config',
            'info',
            'no config file: using the defaults',
            `looked for ${defaultConfigPath(environment)} (BREAKERBAR_CONFIG or --config name another)`,
          ),
        ];
    return { loaded, findings };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const loaded = resolveDirectories(defaultsOf(configSchema), null, environment);
    return {
      loaded,
      findings: [
        finding(
          'config',
          'error',
          'the config cannot be used',
          message,
          'correct the file (docs/configuration.md lists every key with its type and default), or pass --config with another file; the daemon refuses to start until then',
        ),
        finding('config', 'info', 'the checks below use the default settings instead'),
      ],
    };
  }
}
