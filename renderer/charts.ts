/**
 * The two charts, drawn by uPlot (https://github.com/leeoniya/uPlot, MIT, an
 * ESM build): stacked error bars per step with restarts and breaker
 * transitions marked, and the gateway's probe latency with its down spans.
 *
 * Canvas colours cannot come from CSS directly, so they are read from the CSS
 * custom properties of the current colour scheme when a chart is built; the
 * views rebuild the charts when the scheme changes. uPlot only sets element
 * styles through the CSSOM, which the CSP (`style-src 'self'`) allows.
 */
import { ERROR_GROUPS, type HealthSeries, type Mark, type SparkSeries, type StackedSeries } from './chart-data.js';
import uPlot from './vendor/uPlot.esm.js';

export interface Chart {
  destroy(): void;
}

function cssColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

function axisColors() {
  return {
    stroke: cssColor('--chart-axis', '#555'),
    grid: cssColor('--chart-grid', 'rgba(128,128,128,0.2)'),
  };
}

function axes(yLabel: string): uPlot.Axis[] {
  const { stroke, grid } = axisColors();
  const common = { stroke, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  return [common, { ...common, label: yLabel, labelSize: 18, size: 48 }];
}

const markColor = (mark: Mark): string =>
  mark.kind === 'restart'
    ? cssColor('--chart-restart', '#bf3989')
    : cssColor(`--state-${mark.tone.replace(/_/g, '-')}`, '#888');

/** Draws a vertical line and a short label for each mark inside the plotted range. */
function marksPlugin(marks: readonly Mark[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u: uPlot) => {
        const { ctx } = u;
        const { left, top, width, height } = u.bbox;
        const ratio = window.devicePixelRatio || 1;
        ctx.save();
        ctx.font = `${11 * ratio}px system-ui, sans-serif`;
        ctx.textBaseline = 'top';
        let lastLabelRight = -Infinity;
        for (const mark of marks) {
          const x = u.valToPos(mark.ts / 1000, 'x', true);
          if (x < left || x > left + width) continue;
          ctx.strokeStyle = markColor(mark);
          ctx.fillStyle = ctx.strokeStyle;
          ctx.lineWidth = (mark.kind === 'restart' ? 2 : 1) * ratio;
          ctx.setLineDash(mark.kind === 'restart' ? [] : [4 * ratio, 3 * ratio]);
          ctx.beginPath();
          ctx.moveTo(Math.round(x) + 0.5, top);
          ctx.lineTo(Math.round(x) + 0.5, top + height);
          ctx.stroke();
          // Labels that would overlap the previous one are left to the list under the chart.
          const labelWidth = ctx.measureText(mark.label).width;
          if (x + 3 * ratio > lastLabelRight && x + labelWidth < left + width) {
            ctx.fillText(mark.label, x + 3 * ratio, top + 2 * ratio);
            lastLabelRight = x + 3 * ratio + labelWidth + 6 * ratio;
          }
        }
        ctx.restore();
      },
    },
  };
}

function chartWidth(target: HTMLElement): number {
  return Math.max(280, Math.floor(target.clientWidth || 640));
}

/** Resizes the chart with its container (debounced to a frame). */
function followWidth(chart: uPlot, target: HTMLElement, height: number): () => void {
  let frame = 0;
  const observer = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const width = chartWidth(target);
      if (width !== chart.width) chart.setSize({ width, height });
    });
  });
  observer.observe(target);
  return () => {
    cancelAnimationFrame(frame);
    observer.disconnect();
  };
}

/** The x axis labelled by `clock` (seconds → words), when given. */
function withClock(list: uPlot.Axis[], clock: ((ms: number) => string) | undefined): uPlot.Axis[] {
  if (!clock || !list[0]) return list;
  const [x, ...rest] = list;
  return [{ ...x, values: (_u: uPlot, splits: number[]) => splits.map((s) => clock(s * 1000)) }, ...rest];
}

export interface ErrorChartOptions {
  target: HTMLElement;
  series: StackedSeries;
  marks: readonly Mark[];
  /** "per minute" */
  per: string;
  /** Bar start and end of the range, seconds. */
  range: [number, number];
  /** Hover text: the counts of the step under the cursor (or null when the cursor left). */
  onHover?: (index: number | null) => void;
}

const ERROR_CHART_HEIGHT = 180;

/**
 * Stacked bars: uPlot has no stacking of its own, so each group is drawn at its cumulative height,
 * the tallest first, and every lower group paints over the bottom of it.
 */
export function errorChart(options: ErrorChartOptions): Chart {
  const { target, series, marks } = options;
  const bars = uPlot.paths.bars?.({ size: [0.9, 40], align: 1 });
  const order = ERROR_GROUPS.map((_, i) => i).reverse();
  const chart = new uPlot(
    {
      width: chartWidth(target),
      height: ERROR_CHART_HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: {
        x: { time: true, range: () => options.range },
        y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] },
      },
      axes: axes(`errors ${options.per}`),
      series: [
        {},
        ...order.map((g) => {
          const color = cssColor(`--outcome-${ERROR_GROUPS[g]!.key.replace(/_/g, '-')}`, '#c00');
          return {
            label: ERROR_GROUPS[g]!.label,
            stroke: color,
            fill: color,
            width: 0,
            ...(bars ? { paths: bars } : {}),
            points: { show: false },
          } satisfies uPlot.Series;
        }),
      ],
      hooks: {
        setCursor: [
          (u: uPlot) => {
            const index = u.cursor.idx;
            options.onHover?.(index === null || index === undefined ? null : index);
          },
        ],
      },
      plugins: [marksPlugin(marks)],
    },
    [series.xs, ...order.map((g) => series.stacked[g]!)],
    target,
  );
  const unfollow = followWidth(chart, target, ERROR_CHART_HEIGHT);
  return {
    destroy() {
      unfollow();
      chart.destroy();
    },
  };
}

export interface HealthChartOptions {
  target: HTMLElement;
  series: HealthSeries;
  marks: readonly Mark[];
  range: [number, number];
  /** The y axis's name, in the reader's language ("probe ms"). */
  yLabel?: string;
  /** Words a time of day on the x axis in the reader's language (uPlot's own are English: "9:05am"). */
  clock?: (ms: number) => string;
}

const HEALTH_CHART_HEIGHT = 140;

/** Probe latency as a line; spans where probes failed are shaded behind it. */
export function healthChart(options: HealthChartOptions): Chart {
  const { target, series, marks } = options;
  const downFill = cssColor('--chart-down', 'rgba(220, 38, 38, 0.25)');
  const line = cssColor('--chart-latency', '#2563eb');
  const chart = new uPlot(
    {
      width: chartWidth(target),
      height: HEALTH_CHART_HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: true, range: () => options.range },
        y: { range: (_u, _min, max) => [0, Math.max(10, Math.ceil((max || 0) * 1.2))] },
      },
      axes: withClock(axes(options.yLabel ?? 'probe ms'), options.clock),
      series: [{}, { label: 'latency', stroke: line, width: 1.5, spanGaps: false, points: { size: 3 } }],
      hooks: {
        drawClear: [
          (u: uPlot) => {
            const { ctx } = u;
            const { top, height, left, width } = u.bbox;
            ctx.save();
            ctx.fillStyle = downFill;
            for (const span of series.down) {
              const from = Math.max(left, u.valToPos(span.from / 1000, 'x', true));
              const to = Math.min(left + width, u.valToPos(span.to / 1000, 'x', true));
              if (to > from) ctx.fillRect(from, top, Math.max(to - from, 2), height);
            }
            ctx.restore();
          },
        ],
      },
      plugins: [marksPlugin(marks)],
    },
    [series.xs, series.latency],
    target,
  );
  const unfollow = followWidth(chart, target, HEALTH_CHART_HEIGHT);
  return {
    destroy() {
      unfollow();
      chart.destroy();
    },
  };
}

export interface SparkChartOptions {
  target: HTMLElement;
  series: SparkSeries;
  range: [number, number];
  /** Series names for the legend-less chart's hover (already in the reader's language). */
  labels: { calls: string; failures: string };
}

const SPARK_HEIGHT = 44;

/**
 * A card's last day, small: calls as a filled line, failures as a line on top, no axes. It is read as a shape
 * (a quiet day, a storm at 3 am); the numbers are beside it.
 */
export function sparkChart(options: SparkChartOptions): Chart {
  const { target, series } = options;
  const calls = cssColor('--chart-latency', '#2563eb');
  const failures = cssColor('--state-open', '#cf222e');
  const width = () => Math.max(120, Math.floor(target.clientWidth || 240));
  const chart = new uPlot(
    {
      width: width(),
      height: SPARK_HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      padding: [2, 0, 0, 0],
      scales: {
        x: { time: true, range: () => options.range },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      axes: [{ show: false }, { show: false }],
      series: [
        {},
        { label: options.labels.calls, stroke: calls, fill: `${calls}33`, width: 1, points: { show: false } },
        { label: options.labels.failures, stroke: failures, width: 1.5, points: { show: false } },
      ],
    },
    [series.xs, series.calls, series.failures],
    target,
  );
  let frame = 0;
  const observer = new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const next = width();
      if (next !== chart.width) chart.setSize({ width: next, height: SPARK_HEIGHT });
    });
  });
  observer.observe(target);
  return {
    destroy() {
      cancelAnimationFrame(frame);
      observer.disconnect();
      chart.destroy();
    },
  };
}
