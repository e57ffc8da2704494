/**
 * A rehearsal's time, in one object that every part of the run reads, so that they all agree on it.
 *
 * Two clocks, as on a real machine: a monotonic one that only moves forward
 * (scenario time is measured on it, and the core judges its durations on it),
 * and the wall clock, which is the monotonic one plus the steps the scenario
 * takes (`clockStepSec`). Records, log lines, stored times and the simulated
 * gateway's uptime follow the wall clock.
 *
 * Time compression: scenario seconds are divided by `scale` for wall time (see time-scale.ts).
 */
import { performance } from 'node:perf_hooks';

export class RehearsalClock {
  // The monotonic clock (epoch-like ms, only forward) and the wall clock: the monotonic one plus the steps taken.
  private readonly wallOrigin = Date.now();
  private readonly perfOrigin = performance.now();
  private stepMs = 0;
  /** The scenario's second 0 on the monotonic clock: set again by `start` once the core runs. */
  private t0: number;

  /** `scale`: scenario seconds per wall second. */
  constructor(readonly scale: number) {
    this.t0 = this.mono();
  }

  /** The monotonic clock, in epoch-like milliseconds (handed to the core as its monotonic clock). */
  readonly mono = (): number => this.wallOrigin + (performance.now() - this.perfOrigin);

  /** The wall clock, in epoch milliseconds (handed to the core and the simulated gateway as theirs). */
  readonly wallNow = (): number => Math.floor(this.mono()) + this.stepMs;

  /** Scenario time starts now. */
  start(): void {
    this.t0 = this.mono();
  }

  /** Wall milliseconds since the start, on the monotonic clock. */
  elapsedMs(): number {
    return this.mono() - this.t0;
  }

  /** Scenario seconds since the start, on the monotonic clock. */
  now(): number {
    return ((this.mono() - this.t0) * this.scale) / 1000;
  }

  /** A span of scenario seconds in (compressed) wall milliseconds. */
  toWallMs(sec: number): number {
    return (sec * 1000) / this.scale;
  }

  /** How far the wall clock is from the monotonic one: the sum of the steps taken, in milliseconds. */
  get offsetMs(): number {
    return this.stepMs;
  }

  /** Steps the wall clock by `sec` seconds (back when negative); the monotonic clock does not move. */
  step(sec: number): void {
    this.stepMs += Math.round(sec * 1000);
  }

  /**
   * A wall time the core stored, in scenario seconds (the clock steps in force now taken out). Rounded down, never
   * to the nearest: an incident opened by a breaker transition must not start after that transition's own event.
   */
  scenarioSecOf(wall: number): number {
    return Math.max(0, Math.floor((wall - this.stepMs - this.t0) * this.scale) / 1000);
  }
}
