import { createLogger, type Logger } from '../../lib/log.js';

/** The service's own logger at `level`, its JSON lines kept in `lines` instead of written to stderr. */
export function keptLogger(level: Parameters<typeof createLogger>[0] = 'info'): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, ...createLogger(level, (line) => lines.push(line)) };
}
