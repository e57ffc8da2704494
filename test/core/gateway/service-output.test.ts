/**
 * Parsing what launchctl and systemctl print, on the fixtures in
 * test/fixtures/service-managers.
 */
import { describe, expect, it } from 'vitest';
import {
  parseLaunchctlDisabled,
  parseLaunchctlPrint,
  readLaunchctlPrint,
} from '../../../main/core/service-managers/launchctl-print.js';
import { parseSystemctlShow } from '../../../main/core/service-managers/systemctl-show.js';
import { fixture } from './service-fixtures.js';

describe('launchctl print', () => {
  it('a running job: top-level state, pid, runs and plist path; nested blocks ignored', () => {
    expect(parseLaunchctlPrint(fixture('launchctl print running').stdout)).toEqual({
      state: 'running',
      pid: 48213,
      lastExitCode: null,
      lastExit: '(never exited)',
      lastExitReason: null,
      runs: 3,
      path: '/Users/ada/Library/LaunchAgents/ai.openclaw.gateway.plist',
      properties: 'keepalive | runatload | inferred program',
    });
  });

  it('parked, throttled with an exit code, throttled after a signal', () => {
    expect(parseLaunchctlPrint(fixture('launchctl print parked').stdout)).toMatchObject({
      state: 'not running',
      pid: null,
      lastExitCode: 1,
      runs: 14,
    });
    expect(parseLaunchctlPrint(fixture('launchctl print spawn scheduled').stdout)).toMatchObject({
      state: 'spawn scheduled',
      pid: null,
      lastExitCode: 78,
      lastExit: '78: EX_CONFIG',
      runs: 54,
    });
    expect(parseLaunchctlPrint(fixture('launchctl print spawn scheduled after signal').stdout)).toMatchObject({
      state: 'spawn scheduled',
      lastExitCode: null,
      lastExitReason: 'Killed: 9',
    });
  });

  it('only "Could not find service" proves a job is not loaded', () => {
    const missing = fixture('launchctl print not loaded');
    expect(readLaunchctlPrint(missing.exitCode, missing.stdout, missing.stderr)).toEqual({
      kind: 'not_loaded',
      detail: 'Bad request. Could not find service "ai.openclaw.gateway" in domain for user gui: 501',
    });
    const noDomain = fixture('launchctl print no gui domain');
    expect(readLaunchctlPrint(noDomain.exitCode, noDomain.stdout, noDomain.stderr).kind).toBe('error');
    expect(readLaunchctlPrint(1, '', '').kind).toBe('error');
  });

  it('print-disabled: both formats, and a job not listed is not disabled', () => {
    expect(parseLaunchctlDisabled(fixture('launchctl print-disabled enabled').stdout, 'ai.openclaw.gateway')).toBe(
      false,
    );
    expect(parseLaunchctlDisabled(fixture('launchctl print-disabled disabled').stdout, 'ai.openclaw.gateway')).toBe(
      true,
    );
    expect(parseLaunchctlDisabled(fixture('launchctl print-disabled legacy').stdout, 'ai.openclaw.gateway')).toBe(true);
    expect(parseLaunchctlDisabled(fixture('launchctl print-disabled legacy').stdout, 'com.openssh.ssh-agent')).toBe(
      false,
    );
    expect(parseLaunchctlDisabled(fixture('launchctl print-disabled enabled').stdout, 'ai.openclaw.work')).toBeNull();
  });
});

describe('systemctl show', () => {
  it('reads the properties whatever their order; MainPID=0 is no process', () => {
    expect(parseSystemctlShow(fixture('systemctl show failed start limit').stdout)).toEqual({
      loadState: 'loaded',
      loadError: null,
      activeState: 'failed',
      subState: 'failed',
      result: 'start-limit-hit',
      mainPid: null,
      restarts: 10,
      execMainStatus: 1,
      unitFileState: 'enabled',
      fragmentPath: '/home/ada/.config/systemd/user/openclaw-gateway.service',
    });
    const reversed = fixture('systemctl show active').stdout.trim().split('\n').reverse().join('\n');
    expect(parseSystemctlShow(reversed)).toMatchObject({ activeState: 'active', subState: 'running', mainPid: 21940 });
  });

  it('a unit without a file: not-found, empty paths, the load error kept', () => {
    expect(parseSystemctlShow(fixture('systemctl show not found').stdout)).toMatchObject({
      loadState: 'not-found',
      loadError: 'org.freedesktop.systemd1.NoSuchUnit "Unit openclaw-gateway.service not found."',
      fragmentPath: null,
      unitFileState: null,
    });
    expect(parseSystemctlShow('LoadState=loaded\nLoadError= ""\n').loadError).toBeNull();
    expect(parseSystemctlShow('')).toMatchObject({ loadState: null, activeState: null });
  });
});
