/** A Chart.js bar chart of requests, errors and throttled calls per bucket (only the parts we use are registered). */
import { useEffect, useRef } from 'preact/hooks';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series { labels: string[]; total: number[]; errors: number[]; throttled: number[] }

export function TrafficChart({ series, title, testId }: { series: Series; title: string; testId?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: series.labels,
        datasets: [
          { label: 'Requests', data: series.total, backgroundColor: '#5b7bd5' },
          { label: 'Errors', data: series.errors, backgroundColor: '#d55b5b' },
          { label: 'Throttled (429)', data: series.throttled, backgroundColor: '#e0a43a' },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { title: { display: false, text: title }, legend: { position: 'bottom' } },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [series]);
  return <div class="chart" data-testid={testId}><h3>{title}</h3><div class="chart-box"><canvas ref={canvas} aria-label={title} role="img" /></div></div>;
}
