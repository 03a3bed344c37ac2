// Bolt and the Slack clients log through our logger, so their lines are redacted and leveled like ours.
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';

const SEVERITY: Record<LogLevel, number> = {
  [LogLevel.DEBUG]: 0,
  [LogLevel.INFO]: 1,
  [LogLevel.WARN]: 2,
  [LogLevel.ERROR]: 3,
};

export function slackLogger(logger: Logger, name = 'slack'): SlackLogger {
  let level: LogLevel = LogLevel.INFO;
  let source = name;
  const emit = (at: LogLevel, parts: unknown[]) => {
    if (SEVERITY[at] < SEVERITY[level]) return;
    const text = parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' ');
    logger[at]({ source }, text);
  };
  return {
    debug: (...parts: unknown[]) => emit(LogLevel.DEBUG, parts),
    info: (...parts: unknown[]) => emit(LogLevel.INFO, parts),
    warn: (...parts: unknown[]) => emit(LogLevel.WARN, parts),
    error: (...parts: unknown[]) => emit(LogLevel.ERROR, parts),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: (next: string) => {
      source = `${name}:${next}`;
    },
  };
}
