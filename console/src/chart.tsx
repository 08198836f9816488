import { useEffect, useRef, useState } from 'preact/hooks';

/** One series of a chart: its label and values (null: no value at that x). */
export interface Series {
  label: string;
  values: (number | null)[];
}

const COLOURS = ['#1f6feb', '#2da44e', '#bf8700', '#cf222e', '#8250df', '#57606a'];

/**
 * A chart drawn by uPlot, which is loaded only when a chart is first shown
 * (its own chunk: the console's first load stays within its budget). The
 * canvas is hidden from assistive technology; every chart is drawn from a
 * table that sits beside it, which is what screen readers read.
 */
export function Chart({
  title,
  x,
  series,
  bars,
  timeAxis,
}: {
  title: string;
  x: number[];
  series: Series[];
  bars?: boolean;
  timeAxis?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let plot: { destroy(): void } | undefined;
    let gone = false;
    void (async () => {
      try {
        const [{ default: UPlot }] = await Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]);
        if (gone || !box.current) return;
        const width = Math.max(280, Math.min(720, box.current.clientWidth || 600));
        plot = new UPlot(
          {
            width,
            height: 220,
            scales: { x: { time: !!timeAxis } },
            legend: { show: true },
            series: [
              {},
              ...series.map((s, i) => ({
                label: s.label,
                stroke: COLOURS[i % COLOURS.length],
                width: 2,
                ...(bars
                  ? { fill: `${COLOURS[i % COLOURS.length]}55`, paths: UPlot.paths.bars!({ size: [0.6, 60] }) }
                  : {}),
              })),
            ],
            axes: timeAxis
              ? [{}, {}]
              : [
                  {
                    values: (_u: unknown, ticks: number[]) =>
                      ticks.map((t) => (Number.isInteger(t) ? String(t + 1) : '')),
                  },
                  {},
                ],
          },
          [x, ...series.map((s) => s.values)] as never,
          box.current,
        );
      } catch {
        setFailed(true);
      }
    })();
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [JSON.stringify(x), JSON.stringify(series), bars, timeAxis]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      {failed && <p class="muted">The chart could not be drawn; the table beside it has the figures.</p>}
    </figure>
  );
}
