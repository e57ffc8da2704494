/**
 * Whether BreakerBar's data stays with the user it runs as: the data directory 0700, the database (with its
 * -wal and -shm), the lock, the token, the API address and the config file 0600. Older versions created them as
 * the umask allowed (often 0755 and 0644), so a data directory made then can still be open to every local user;
 * a config file is the user's own, never changed by BreakerBar, only named here.
 */
import { privateDataFiles } from '../store/private-files.js';
import { statOrCode } from './fs-util.js';
import { type Finding, saidFinding } from './types.js';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** `configFile`: the config file in use (it holds webhook URLs, tokens and secrets), wherever it is. */
export function checkDataPrivacy(dataDir: string, dbPath: string, configFile: string | null = null): Finding[] {
  const findings: Finding[] = [];
  const open = (
    path: string,
    mode: number,
    wanted: string,
    key: 'doctor.privacy.dirOpen' | 'doctor.privacy.fileOpen',
  ) =>
    saidFinding(
      'breakerbar',
      'warn',
      { key, params: { path, mode: octal(mode) } },
      { key: 'doctor.privacy.detail' },
      { key: 'doctor.privacy.fix', params: { path, mode: wanted } },
    );
  const dir = statOrCode(dataDir);
  if ('stats' in dir && (dir.stats.mode & 0o077) !== 0) {
    findings.push(open(dataDir, dir.stats.mode, '700', 'doctor.privacy.dirOpen'));
  }
  const files = privateDataFiles(dataDir, dbPath);
  if (configFile !== null && !files.includes(configFile)) files.push(configFile);
  for (const path of files) {
    const file = statOrCode(path);
    if ('stats' in file && (file.stats.mode & 0o077) !== 0) {
      findings.push(open(path, file.stats.mode, '600', 'doctor.privacy.fileOpen'));
    }
  }
  if (findings.length === 0) findings.push(saidFinding('breakerbar', 'ok', { key: 'doctor.privacy.private' }));
  return findings;
}
