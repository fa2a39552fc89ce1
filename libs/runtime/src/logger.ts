import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { trace } from '@sextant/telemetry';

const ORDER: Record<LogLevel, number> = { fatal: 0, error: 1, warn: 2, log: 3, debug: 4, verbose: 5 };
const FROM_CONFIG: Record<string, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'log',
  debug: 'debug',
  verbose: 'verbose',
};

/**
 * Nest's own start-up lines (a module's providers made, each route mapped: some forty per start), at debug level:
 * at info they buried the lines that say what the process is doing.
 */
const NEST_WIRING = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);

/**
 * One JSON object per line: `{time, level, service, context, msg, trace_id}`.
 * Writes to stdout, or stderr when stdout carries a protocol (MCP over stdio).
 */
export class JsonLogger implements LoggerService {
  private readonly threshold: number;

  constructor(
    private readonly service: string,
    level: string = 'info',
    private readonly stream: NodeJS.WritableStream = process.stdout,
  ) {
    this.threshold = ORDER[FROM_CONFIG[level] ?? 'log'];
  }

  /**
   * A logger that also serves every `new Logger(context)` of the process from
   * now on, including those used before a Nest application exists (whose
   * default would print coloured, non-JSON lines).
   */
  static install(service: string, level: string = 'info', stream: NodeJS.WritableStream = process.stdout): JsonLogger {
    const logger = new JsonLogger(service, level, stream);
    Logger.overrideLogger(logger);
    return logger;
  }

  log(message: unknown, ...rest: unknown[]) {
    this.write(NEST_WIRING.has(rest.at(-1) as string) ? 'debug' : 'log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (ORDER[level] > this.threshold) return;
    // Nest passes the context as the last string argument; for errors a stack may precede it.
    const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' && rest[0].includes('\n    at ') ? (rest.shift() as string) : undefined;
    const spanContext = trace.getActiveSpan()?.spanContext();
    const entry: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: level === 'log' ? 'info' : level,
      service: this.service,
      context,
      msg: message instanceof Error ? message.message : message,
    };
    if (stack ?? (message instanceof Error ? message.stack : undefined)) entry.stack = stack ?? (message as Error).stack;
    if (spanContext) entry.trace_id = spanContext.traceId;
    this.stream.write(`${JSON.stringify(entry)}\n`);
  }
}
