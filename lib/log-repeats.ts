import type { Logger } from './log.js';

type Level = 'warn' | 'error';

/** How long repeats of one line are counted before their summary is written. */
export const REPEAT_WINDOW_MS = 10_000;
/** Kinds counted at once; past this many distinct lines in one window, lines are written as they come, uncounted. */
export const MAX_COUNTED_KINDS = 1000;

export interface RepeatLog {
  /**
   * Writes the line unless a line of the same `kind` was written in the current window; a repeat is only counted, and
   * the count is written as one summary line ("N more like this in the last T s") when the window ends.
   */
  write(level: Level, kind: string, message: string, fields?: Record<string, unknown>): void;
  /** the same logger whose warn and error lines collapse when message and fields repeat (libraries' own warnings) */
  readonly logger: Logger;
  /** the logger it writes to, for lines that must each be written (a defect's stack, request by request) */
  readonly every: Logger;
  /** writes the summaries still counting and stops their timers */
  close(): void;
}

interface Window {
  level: Level;
  message: string;
  started: number;
  repeats: number;
  timer: NodeJS.Timeout;
}

/**
 * Collapses repeated log lines: during an outage every failed request, and every warning the database driver prints
 * for it, would otherwise write the same line hundreds of times a minute. The first line of a kind is written as it
 * is; repeats within the window are counted, and a window that counted some is followed by another, so a long outage
 * writes one summary per window and a new one starts with a full line again.
 */
export function collapseRepeats(log: Logger, windowMs = REPEAT_WINDOW_MS): RepeatLog {
  const windows = new Map<string, Window>();

  const summarise = (window: Window): void => {
    const seconds = Math.max(1, Math.round((Date.now() - window.started) / 1000));
    log[window.level](`${window.repeats} more like this in the last ${seconds} s`, {
      repeats: window.repeats,
      seconds,
      like: window.message,
    });
  };

  const end = (kind: string): void => {
    const window = windows.get(kind);
    if (!window) return;
    if (window.repeats === 0) {
      windows.delete(kind);
      return;
    }
    summarise(window);
    window.started = Date.now();
    window.repeats = 0;
    window.timer = schedule(kind);
  };

  const schedule = (kind: string): NodeJS.Timeout => setTimeout(() => end(kind), windowMs).unref();

  const write: RepeatLog['write'] = (level, kind, message, fields = {}) => {
    const window = windows.get(kind);
    if (window) {
      window.repeats += 1;
      return;
    }
    log[level](message, fields);
    if (windows.size < MAX_COUNTED_KINDS)
      windows.set(kind, { level, message, started: Date.now(), repeats: 0, timer: schedule(kind) });
  };

  const collapsing =
    (level: Level) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      write(level, `${level} ${message} ${JSON.stringify(fields)}`, message, fields);

  return {
    write,
    logger: {
      debug: (message, fields) => log.debug(message, fields),
      info: (message, fields) => log.info(message, fields),
      warn: collapsing('warn'),
      error: collapsing('error'),
    },
    every: log,
    close() {
      for (const window of windows.values()) {
        clearTimeout(window.timer);
        if (window.repeats > 0) summarise(window);
      }
      windows.clear();
    },
  };
}
