import type { LogLevel } from './config/types.js';
import { currentRequestId } from './http/request-id.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One JSON line per event on stderr; never pass secrets, images, card data or emails in fields. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit =
    (at: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[at] < ORDER[level]) return;
      const requestId = currentRequestId();
      write(
        `${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...(requestId ? { requestId } : {}), ...fields })}\n`,
      );
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
