/**
 * `<BarChart labels series>`: a Chart.js bar chart on a canvas (only the pieces a bar chart needs are
 * registered, so the bundle stays small). Animation is off so the chart is drawn when the page shows it.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  data: number[];
  color: string;
}

export function BarChart({ labels, series, stacked, label }: { labels: string[]; series: Series[]; stacked?: boolean; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: { labels, datasets: series.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.color })) },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: stacked ?? false }, y: { stacked: stacked ?? false, beginAtZero: true } },
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify(labels), JSON.stringify(series)]);
  return <div class="chart"><canvas ref={canvas} role="img" aria-label={label} /></div>;
}
