import { useEffect, useRef } from 'react'
import { formatDate, useLocale } from '#app/features/locale/date-format.ts'

export type ChartSeries = {
  label: string
  values: number[]
  /** A CSS colour; readable on both themes' backgrounds. */
  color: string
  /** Drawn against a second axis on the right (e.g. orders beside revenue). */
  secondAxis?: boolean
  format?: (value: number) => string
}

/**
 * A line chart of per-day figures, drawn by uPlot (docs/decisions/015-first-party-analytics.md). uPlot is
 * imported inside the effect, so it is a chunk of its own loaded only when this page runs in a browser: no
 * other page's bundle carries it. Its stylesheet is the analytics route's `links` (a stylesheet imported
 * here was built but never loaded in production). The chart is a picture for sighted readers (aria-hidden);
 * the table the page renders beside it holds the same numbers, and is all there is without JavaScript.
 */
export function AnalyticsChart({ days, series }: { days: string[]; series: ChartSeries[] }) {
  const container = useRef<HTMLDivElement>(null)
  const locale = useLocale()
  useEffect(() => {
    const element = container.current
    if (!element) return
    let chart: { destroy(): void; setSize(size: { width: number; height: number }): void } | undefined
    let cancelled = false
    const observer = new ResizeObserver(() => chart?.setSize({ width: element.clientWidth, height: HEIGHT }))
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled) return
      const ink = getComputedStyle(element).color
      const grid = { stroke: 'rgba(127, 127, 127, 0.25)', width: 1 }
      const hasSecond = series.some((line) => line.secondAxis)
      chart = new UPlot(
        {
          width: element.clientWidth,
          height: HEIGHT,
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
          // Days are UTC days (features/analytics/range.ts): ticks fall on their midnights, a day apart at least.
          tzDate: (seconds) => UPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
          axes: [
            {
              stroke: ink,
              grid,
              incrs: [DAY_SECONDS, 2 * DAY_SECONDS, 7 * DAY_SECONDS, 14 * DAY_SECONDS, 28 * DAY_SECONDS],
              values: (_u, ticks) =>
                ticks.map((seconds) => formatDate(new Date(seconds * 1000), 'monthDay', locale)),
            },
            {
              stroke: ink,
              grid,
              values: (_u, ticks) => ticks.map((tick) => series[0]?.format?.(tick) ?? String(tick)),
            },
            ...(hasSecond ? [{ scale: 'second', side: 1, stroke: ink, grid: { show: false } }] : []),
          ],
          series: [
            {
              label: 'Day',
              // No day under the cursor: a dash, not 1970-01-01.
              value: (_u, seconds) =>
                seconds === null ? '—' : formatDate(new Date(seconds * 1000), 'date', locale),
            },
            ...series.map((line) => ({
              label: line.label,
              stroke: line.color,
              width: 2,
              scale: line.secondAxis ? 'second' : 'y',
              value: (_u: unknown, value: number | null) =>
                value === null ? '—' : (line.format?.(value) ?? String(value)),
            })),
          ],
        },
        [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), ...series.map((line) => line.values)],
        element,
      )
      observer.observe(element)
    })
    return () => {
      cancelled = true
      observer.disconnect()
      chart?.destroy()
    }
  }, [days, series, locale])
  return <div ref={container} aria-hidden="true" className="min-h-[260px] w-full" />
}

const HEIGHT = 240
const DAY_SECONDS = 86_400
