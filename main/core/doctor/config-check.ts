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
import { type Finding, saidFinding } from './types.js';

export interface ConfigCheck {
  loaded: LoadedConfig;
  findings: Finding[];
}

export function checkConfig(configFile: string | undefined, environment: Environment): ConfigCheck {
  try {
    const loaded = loadConfig(configFile, environment);
    const findings = loaded.file
      ? [saidFinding('config', 'ok', { key: 'doctor.config.file', params: { path: loaded.file } })]
      : [
          saidFinding(
            'config',
            'info',
            { key: 'doctor.config.none' },
            { key: 'doctor.config.noneDetail', params: { path: defaultConfigPath(environment) } },
          ),
        ];
    return { loaded, findings };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const loaded = resolveDirectories(defaultsOf(configSchema), null, environment);
    return {
      loaded,
      findings: [
        saidFinding('config', 'error', { key: 'doctor.config.unusable' }, message, {
          key: 'doctor.config.unusableFix',
        }),
        saidFinding('config', 'info', { key: 'doctor.config.defaults' }),
      ],
    };
  }
}
