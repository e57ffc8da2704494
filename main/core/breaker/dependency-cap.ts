/**
 * A ceiling on the dependencies BreakerBar keeps a breaker and metrics series for. Each distinct
 * `provider/model` costs a breaker, a dozen series per outcome and a dashboard row; a misbehaving client or a
 * damaged source inventing model names (tens of thousands) would otherwise grow memory and `/metrics` without
 * bound. The first `max` dependencies seen keep their own; calls to any further one count under
 * `<provider>/other` (and once providers too are past the ceiling, under `other/other`). The store keeps every
 * call as it was: only what is tracked in memory and exported is folded.
 */

export const OTHER_MODEL = 'other';

/** How far the ceiling has been reached, for the status and the doctor. */
export interface DependencyCapStatus {
  max: number;
  /** Dependencies with their own breaker and series. */
  tracked: number;
  /** Distinct dependencies folded into a `<provider>/other` bucket (counted up to a large bound). */
  folded: number;
}

/** Folded names remembered to count them distinctly; past this, the count stops growing (memory stays bounded). */
const MAX_REMEMBERED_FOLDS = 100_000;

export class DependencyCap {
  private readonly tracked = new Set<string>();
  private readonly buckets = new Set<string>();
  private readonly folded = new Set<string>();

  /** `onFirstFold` is told once, when the first dependency past the ceiling is folded. */
  constructor(
    private readonly max: number,
    private readonly onFirstFold: (dep: string, bucket: string, max: number) => void = () => {},
  ) {}

  /** The dependency a call is tracked under: its own while there is room (or it has one), else a bucket. */
  dependencyOf(call: { dep: string; provider: string }): string {
    if (this.tracked.has(call.dep) || this.buckets.has(call.dep)) return call.dep;
    if (this.tracked.size < this.max) {
      this.tracked.add(call.dep);
      return call.dep;
    }
    let bucket = `${call.provider}/${OTHER_MODEL}`;
    if (!this.buckets.has(bucket)) {
      if (this.buckets.size >= this.max) bucket = `${OTHER_MODEL}/${OTHER_MODEL}`;
      this.buckets.add(bucket);
    }
    if (!this.folded.has(call.dep) && this.folded.size < MAX_REMEMBERED_FOLDS) {
      this.folded.add(call.dep);
      if (this.folded.size === 1) this.onFirstFold(call.dep, bucket, this.max);
    }
    return bucket;
  }

  /** The call as tracked: itself, or a copy counted under its bucket. */
  fold<C extends { dep: string; provider: string; model: string }>(call: C): C {
    const dep = this.dependencyOf(call);
    return dep === call.dep ? call : { ...call, dep, model: OTHER_MODEL };
  }

  status(): DependencyCapStatus {
    return { max: this.max, tracked: this.tracked.size, folded: this.folded.size };
  }
}
