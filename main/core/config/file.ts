/**
 * The config file as the settings view edits it: read what is written (only
 * the keys set), validate a replacement against the schema before anything is
 * written, and write it atomically so the daemon (which follows the file)
 * never reads half a file.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { findDuplicateKey } from './duplicate-keys.js';
import { ConfigError, configSchema } from './index.js';
import { describeFields, parseWith, upgradeRaw } from './schema.js';

export interface ConfigFileView {
  file: string;
  exists: boolean;
  raw: Record<string, unknown>;
  fields: Array<{ path: string; default: unknown; doc: string; expected: string }>;
}

export function readConfigFile(file: string): ConfigFileView {
  let raw: Record<string, unknown> = {};
  const exists = existsSync(file);
  if (exists) {
    const text = readFileSync(file, 'utf8');
    const parsed: unknown = JSON.parse(text);
    const duplicate = findDuplicateKey(text);
    if (duplicate) {
      throw new ConfigError(
        `line ${duplicate.line}: config key "${duplicate.path}" is set twice (only the last would count); keep one`,
      );
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      // A key written in an older form is shown (and saved) in its current one.
      raw = upgradeRaw(configSchema, parsed as Record<string, unknown>);
  }
  const fields = describeFields(configSchema).map(({ path, field }) => ({
    path,
    default: field.default,
    doc: field.doc,
    expected: field.expected,
  }));
  return { file, exists, raw, fields };
}

/** The dotted key a ConfigError names (`config key "watchdog.threshold" is …`), for the form to point at. */
export function keyOfError(error: ConfigError): string | undefined {
  return /config key "([^"]+)"/.exec(error.message)?.[1]?.replace(/\[\d+\].*$/, '');
}

/** Throws ConfigError naming the key when `config` is not a config file BreakerBar would load. */
export function validateConfigFile(config: unknown): void {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new ConfigError('config must be a JSON object');
  }
  parseWith(configSchema, config);
}

/** Validates `config` (throws ConfigError naming the key) and writes it; nothing is written when invalid. */
export function writeConfigFile(file: string, config: unknown): void {
  validateConfigFile(config);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  // 0600: the file may hold webhook secrets and the gateway token.
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}
