import { format } from "node:util";
import pino, { type Logger } from "pino";

// The production server's log: JSON lines on stdout (pino), each with time, level, instance and
// pid. Every console line of the process (the app's `[db] ...`, `[engine] ...`, Next's own) goes
// through it, so a line is always one JSON object, a stack trace included (its newlines escaped),
// and nothing in it carries a secret: API keys, bearer tokens, magic-link tokens and cookies are
// masked in the text, and the redacted paths below in structured fields.

/** Structured fields never written as they are. */
const REDACT = [
  "authorization",
  "cookie",
  "token",
  "key",
  "apiKey",
  "*.authorization",
  "*.cookie",
  "*.token",
  "*.apiKey",
  "headers.authorization",
  "headers.cookie",
  'headers["x-api-key"]',
  'headers["set-cookie"]',
];

/** Secrets in free text: API keys, bearer credentials, tokens in URLs, cookie headers. */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/svc_(live|test)_[A-Za-z0-9_-]+/g, "svc_$1_[redacted]"],
  [/(Bearer\s+)[^\s"',;]+/gi, "$1[redacted]"],
  [/([?&](?:token|key|apikey|api_key|access_token|code)=)[^&\s"']+/gi, "$1[redacted]"],
  [/((?:^|[\s"'])(?:cookie|set-cookie|x-api-key)\s*[:=]\s*)[^\n"]+/gi, "$1[redacted]"],
  [/((?:authjs|next-auth)\.[a-z-]*token=)[^;\s"']+/gi, "$1[redacted]"],
];

/** `text` with every secret pattern masked. */
export function scrub(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** What stdStreams tells of stdout lines it dropped. */
export interface DroppedLines {
  /** A line was dropped. */
  dropped?(): void;
  /** stdout was written out again after `count` lines were dropped. */
  caughtUp?(count: number): void;
}

/**
 * Lines of level warn and above go to stderr, written at once (a fault's line is out before the
 * process ends); the rest (the access log among them) to stdout in pino's asynchronous mode: lines
 * gathered while a write is under way go out in the next write, instead of one write(2) per
 * request. Pino flushes it when the process exits; a crash of the host may lose the last lines.
 * While nothing reads stdout, at most `bufferBytes` of lines wait; a line past that is dropped
 * (sonic-boom's `maxLength` and `drop` event), and `report` is told.
 */
export function stdStreams(bufferBytes: number, report: DroppedLines = {}): pino.MultiStreamRes {
  const stdout = pino.destination({ fd: 1, sync: false, maxLength: bufferBytes });
  let dropped = 0;
  stdout.on("drop", () => {
    dropped++;
    report.dropped?.();
  });
  // "drain": every line held has been written.
  stdout.on("drain", () => {
    if (dropped === 0) return;
    report.caughtUp?.(dropped);
    dropped = 0;
  });
  return pino.multistream(
    [
      { level: "debug", stream: stdout },
      { level: "warn", stream: pino.destination({ fd: 2, sync: true }) },
    ],
    { dedupe: true },
  );
}

/** What every line of the process carries: time, level, instance and pid. */
function lineShape(instance: string): pino.LoggerOptions {
  return {
    base: { instance, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/** The process's logger: JSON lines with time, level, instance and pid (warn and error on stderr). */
export function createLogger(instance: string, destination: pino.DestinationStream | pino.MultiStreamRes): Logger {
  return pino(
    {
      ...lineShape(instance),
      redact: { paths: REDACT, censor: "[redacted]" },
      hooks: {
        // A message's text is scrubbed of secrets whatever wrote it.
        logMethod(args, method) {
          const at = typeof args[0] === "string" ? 0 : 1;
          if (typeof args[at] === "string") args[at] = scrub(args[at] as string);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

/**
 * The access log's logger, on the process logger's streams: lines of the same shape, written
 * without the masking. Its fields are fixed (request id, method, route template, status,
 * duration), none of them a secret, and the masking cost about a tenth of a keyed request's CPU.
 */
export function createAccessLogger(
  instance: string,
  destination: pino.DestinationStream | pino.MultiStreamRes,
): Logger {
  return pino(lineShape(instance), destination);
}

/**
 * Sends console.log/info/warn/error/debug of this process to `logger` (info, info, warn, error,
 * debug), formatted as console formats them: one JSON line per call, whatever its text holds.
 */
export function routeConsole(logger: Logger): void {
  const line = (args: unknown[]) => format(...args);
  console.log = (...args: unknown[]) => logger.info(line(args));
  console.info = (...args: unknown[]) => logger.info(line(args));
  console.warn = (...args: unknown[]) => logger.warn(line(args));
  console.error = (...args: unknown[]) => logger.error(line(args));
  console.debug = (...args: unknown[]) => logger.debug(line(args));
}
