import pino, { type Logger } from 'pino';
import type { AppConfig } from './index';

export function createLogger(config: Pick<AppConfig, 'logLevel'>, name: string): Logger {
  return pino({ name, level: config.logLevel, redact: ['req.headers.authorization'] });
}

/** The Temporal SDK's own log (bundler output, worker state) is noise below LOG_LEVEL=debug. */
export function temporalRuntimeLogLevel(config: Pick<AppConfig, 'logLevel'>): 'DEBUG' | 'WARN' | 'ERROR' {
  if (config.logLevel === 'debug') return 'DEBUG';
  if (config.logLevel === 'error' || config.logLevel === 'silent') return 'ERROR';
  return 'WARN';
}
