/**
 * Loaded into the daemon under test with `node --import`, so the load benchmark
 * can see the daemon's own event loop without the daemon doing anything for it:
 * `monitorEventLoopDelay` at a 10 ms resolution (a stall shows within 10 ms of
 * its length), its maximum and p99 sent to the parent over IPC once a second,
 * then reset. Does nothing when there is no IPC channel.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelayReport {
  kind: 'loop-delay';
  /** When the second ended (epoch ms). */
  at: number;
  maxMs: number;
  p99Ms: number;
}

if (typeof process.send === 'function') {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const timer = setInterval(() => {
    const report: LoopDelayReport = {
      kind: 'loop-delay',
      at: Date.now(),
      maxMs: histogram.max / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
    };
    histogram.reset();
    process.send?.(report);
  }, 1000);
  timer.unref();
  // The channel must not keep the daemon alive, nor stop it from exiting when the parent goes.
  process.channel?.unref();
}
