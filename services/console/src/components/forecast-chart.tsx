import type { Forecast } from '../domain/forecast';
import { formatEurCents } from '../domain/money';

const width = 640;
const height = 220;
const padding = { left: 64, right: 12, top: 12, bottom: 28 };

/**
 * The balance over the next 30 days as each charge takes its share: a step line, the zero line, and the charges
 * the balance does not cover marked in red. A table beside it says the same in words for screen readers.
 */
export function ForecastChart({ forecast }: { forecast: Forecast }) {
  const values = [forecast.balanceEurCents, 0, ...forecast.steps.map((step) => step.remainingEurCents)];
  const top = Math.max(...values);
  const bottom = Math.min(...values);
  const span = Math.max(1, top - bottom);
  const x = (atMs: number) =>
    padding.left + ((atMs - forecast.startMs) / (forecast.endMs - forecast.startMs)) * (width - padding.left - padding.right);
  const y = (cents: number) => padding.top + ((top - cents) / span) * (height - padding.top - padding.bottom);
  let path = `M ${x(forecast.startMs)} ${y(forecast.balanceEurCents)}`;
  for (const step of forecast.steps) {
    path += ` H ${x(step.atMs)} V ${y(step.remainingEurCents)}`;
  }
  path += ` H ${x(forecast.endMs)}`;
  const ticks = [0, 7, 14, 21, 30];
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Balance after each charge over the next 30 days">
        <line class="chart-axis" x1={padding.left} x2={width - padding.right} y1={y(0)} y2={y(0)} />
        {bottom < 0 && (
          <rect
            class="chart-shortfall-zone"
            x={padding.left}
            y={y(0)}
            width={width - padding.left - padding.right}
            height={y(bottom) - y(0)}
          />
        )}
        <text class="chart-label" x={padding.left - 6} y={y(top) + 4} text-anchor="end">
          {formatEurCents(top)}
        </text>
        <text class="chart-label" x={padding.left - 6} y={y(0) + 4} text-anchor="end">
          €0
        </text>
        {bottom < 0 && (
          <text class="chart-label chart-label-bad" x={padding.left - 6} y={y(bottom)} text-anchor="end">
            {formatEurCents(bottom)}
          </text>
        )}
        {ticks.map((day) => (
          <text key={day} class="chart-label" x={x(forecast.startMs + day * 86_400_000)} y={height - 8} text-anchor="middle">
            {day === 0 ? 'today' : `+${day}d`}
          </text>
        ))}
        <path class="chart-line" d={path} />
        {forecast.steps.map((step) => (
          <circle
            key={`${step.atMs}-${step.label}`}
            class={step.remainingEurCents < 0 ? 'chart-dot chart-dot-bad' : 'chart-dot'}
            cx={x(step.atMs)}
            cy={y(step.remainingEurCents)}
            r={4}
          />
        ))}
      </svg>
      <figcaption>
        {forecast.firstShortfall ? (
          <span class="text-bad" data-testid="shortfall">
            Shortfall from {new Date(forecast.firstShortfall.atMs).toISOString().slice(0, 10)} ({forecast.firstShortfall.label}): the
            balance is {formatEurCents(-Math.min(...forecast.steps.map((step) => step.remainingEurCents)))} short. Top up before then.
          </span>
        ) : (
          <span>The balance covers every charge of the next 30 days ({formatEurCents(forecast.totalEurCents)} in all).</span>
        )}
      </figcaption>
    </figure>
  );
}
