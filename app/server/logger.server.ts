import pino from 'pino'

export type Logger = pino.Logger

/** One JSON line per event on stdout; LOG_LEVEL picks how much. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'codebook' }, timestamp: pino.stdTimeFunctions.isoTime })
}
