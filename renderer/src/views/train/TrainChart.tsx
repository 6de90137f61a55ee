// One Train chart drawn with uPlot: the smoothed line over faint raw values (the legend shows the
// raw value under the cursor), a min-max band, a right-hand axis for a count beside a share,
// figures of some steps only (validation) joined across the gaps, and a second job overlaid, dashed.
// The uPlot instance lives as long as the chart's shape (axis, jobs); new points only update data.
// A job that ran SFT first has the edge between its phases drawn as a labelled dashed line.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { StepMetrics } from '../../../../app/api/index.ts';
import { chartData, phaseEdge, stepAt, type ChartSpec, type XAxis } from './series.ts';

const palette = ['#2f6fdf', '#d9480f', '#2b8a3e', '#9c36b5', '#0c8599', '#a0522d', '#c2255c'];

export interface ChartJob {
  id: string;
  name: string;
  metrics: readonly StepMetrics[];
}

interface Props {
  spec: ChartSpec;
  jobs: readonly ChartJob[];
  axis: XAxis;
  strength: number;
  onPickStep?: (jobId: string, step: number) => void;
}

function build(props: Props): {
  data: uPlot.AlignedData;
  series: uPlot.Series[];
  bands: uPlot.Band[];
} {
  const tables: uPlot.AlignedData[] = [];
  const series: uPlot.Series[] = [{ label: props.axis === 'step' ? 'step' : 'time' }];
  const bands: uPlot.Band[] = [];
  const lines = props.spec.metrics.length + (props.spec.secondary?.length ?? 0);
  props.jobs.forEach((job, j) => {
    const data = chartData(job.metrics, props.spec, props.axis, props.strength);
    const columns: (number | null)[][] = [];
    const prefix = props.jobs.length > 1 ? `${job.name}: ` : '';
    const common: Partial<uPlot.Series> = {
      ...(j === 0 ? {} : { dash: [6, 4] }),
      ...(props.spec.sparse ? { spanGaps: true } : {}),
    };
    data.series.forEach((s, i) => {
      const color = palette[(i + j * lines) % palette.length] ?? '#888';
      const scale = s.secondary ? 'y2' : 'y';
      if (data.band && i === 0) {
        const base = series.length;
        columns.push(data.band.max, data.band.min);
        const edge = { stroke: `${color}33`, width: 1, scale, ...common };
        series.push({ label: `${prefix}max`, ...edge }, { label: `${prefix}min`, ...edge });
        bands.push({ series: [base, base + 1], fill: `${color}1f` });
      }
      columns.push(s.values, s.smoothed);
      series.push(
        { label: `${prefix}${s.label} (raw)`, stroke: `${color}55`, width: 1, scale, ...common },
        { label: `${prefix}${s.label} (smoothed)`, stroke: color, width: 2, scale, ...common },
      );
    });
    tables.push([data.x, ...columns] as uPlot.AlignedData);
  });
  const data = tables.length === 1 ? (tables[0] ?? [[]]) : uPlot.join(tables);
  return { data, series, bands };
}

/** The dashed line where the first job's SFT ends and its GRPO begins, labelled on each side. */
function drawPhaseEdge(u: uPlot, edge: number | null): void {
  if (edge === null) return;
  const x = u.valToPos(edge, 'x', true);
  const { top, height } = u.bbox;
  const context = u.ctx;
  context.save();
  context.strokeStyle = '#868e96';
  context.fillStyle = '#868e96';
  context.setLineDash([4, 4]);
  context.lineWidth = devicePixelRatio;
  context.beginPath();
  context.moveTo(x, top);
  context.lineTo(x, top + height);
  context.stroke();
  context.font = `${String(11 * devicePixelRatio)}px sans-serif`;
  context.textAlign = 'right';
  context.fillText('SFT', x - 4 * devicePixelRatio, top + 12 * devicePixelRatio);
  context.textAlign = 'left';
  context.fillText('GRPO', x + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
  context.restore();
}

function axesOf(spec: ChartSpec): uPlot.Axis[] {
  const axes: uPlot.Axis[] = [{ stroke: 'currentColor' }, { stroke: 'currentColor', scale: 'y' }];
  if (spec.secondary) {
    // uPlot's Side is an ambient const enum, unusable under isolatedModules; 1 is its Right.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    const right: uPlot.Axis['side'] = 1;
    axes.push({ stroke: 'currentColor', scale: 'y2', side: right, grid: { show: false } });
  }
  return axes;
}

export function TrainChart(props: Props) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = `${props.axis}|${props.jobs.map((j) => j.id).join(',')}|${props.spec.id}`;
  const { onPickStep } = props;
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const { data, series, bands } = build(latest.current);
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height: 180,
      scales: {
        x: { time: latest.current.axis === 'wall' },
        y: { auto: true },
        ...(latest.current.spec.secondary ? { y2: { auto: true } } : {}),
      },
      series,
      bands,
      axes: axesOf(latest.current.spec),
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      hooks: {
        draw: [
          (u) => {
            const first = latest.current.jobs[0];
            drawPhaseEdge(u, first ? phaseEdge(first.metrics, latest.current.axis) : null);
          },
        ],
      },
    };
    const instance = new uPlot(options, data, element);
    plot.current = instance;
    const click = () => {
      const index = instance.cursor.idx;
      const first = latest.current.jobs[0];
      if (index === null || index === undefined || !first) return;
      const x = instance.data[0][index];
      const metric = x === undefined ? null : stepAt(first.metrics, latest.current.axis, x);
      // An SFT step has no groups to open.
      if (metric?.phase === 'grpo') onPickStep?.(first.id, metric.step);
    };
    instance.over.addEventListener('click', click);
    const resize = new ResizeObserver(() => {
      instance.setSize({ width: Math.max(element.clientWidth, 200), height: 180 });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      instance.over.removeEventListener('click', click);
      instance.destroy();
      plot.current = null;
    };
  }, [shape, onPickStep]);

  // New points and a new smoothing only replace the data.
  useEffect(() => {
    plot.current?.setData(build(props).data);
  });

  return (
    <figure
      className="train-chart"
      data-testid={`train-chart-${props.spec.id}`}
      data-phase-edge={phaseEdge(props.jobs[0]?.metrics ?? [], props.axis) ?? undefined}
    >
      <figcaption>{props.spec.title}</figcaption>
      <div ref={holder} className="train-chart-plot" />
    </figure>
  );
}
