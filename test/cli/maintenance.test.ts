import { describe, expect, it } from 'vitest';
import { UsageError } from '../../main/cli/command.js';
import { describeMaintenance, maintenanceCommand } from '../../main/cli/maintenance.js';
import { translator } from '../../main/words/messages/index.js';

const NOW = Date.UTC(2026, 11, 1, 10);
const io = { out: () => undefined, err: () => undefined, isTTY: false };

describe('breakerbar maintenance', () => {
  it('says what holds notifications, how it was started and until when', () => {
    expect(describeMaintenance({ manual: null, quiet: null }, NOW)).toBe(
      'no maintenance window and no quiet hours: notifications and automatic restarts as usual',
    );
    const manual = { startedAt: NOW, until: NOW + 7_200_000, reason: 'upgrading OpenClaw' };
    expect(
      describeMaintenance({ manual, quiet: { kind: 'maintenance', until: manual.until, reason: manual.reason } }, NOW),
    ).toBe(
      `maintenance until ${translator('en').relative(manual.until, NOW)}, started by hand (upgrading OpenClaw): no notifications, no automatic restarts`,
    );
    expect(
      describeMaintenance({ manual: null, quiet: { kind: 'maintenance', until: null, reason: 'recurring' } }, NOW),
    ).toContain('until stopped, recurring');
    expect(
      describeMaintenance(
        { manual: null, quiet: { kind: 'quiet_hours', until: NOW + 60_000, reason: 'quiet hours' } },
        NOW,
      ),
    ).toContain('only critical notifications');
  });

  it('refuses a missing or unknown action, and options that belong to start, before calling anyone', async () => {
    const run = (positionals: string[], values: Record<string, unknown> = {}) =>
      maintenanceCommand.run({ positionals, values } as never, io);
    await expect(run([])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['begin'])).rejects.toThrow(/start, stop or status/);
    await expect(run(['stop'], { for: '2h' })).rejects.toThrow(/--for and --reason go with/);
    await expect(run(['start', 'now'])).rejects.toThrow(/one action/);
  });
});
