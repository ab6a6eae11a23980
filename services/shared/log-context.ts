/**
 * Structured logs: with `MOL_LOG_FORMAT=json` every log line is one JSON object (Pino) that names
 * its service (`svc`), its node and, when the line is written while an action runs on behalf of a
 * request, that request's id and organization (`requestId`, `organizationId`), at any call depth
 * and in any process (both travel in the call's meta).
 *
 * The context comes from an AsyncLocalStorage entered around each local action (LogContextMiddleware);
 * it holds the action's context, read when a line is written, so ids set during the action
 * (the gateway authenticates after the request starts) are seen too.
 *
 * What is never logged: params, responses and meta (documents, keys and secrets travel there). The
 * redaction list below is a second line, for objects that name a secret field.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import type { ActionHandler, Context, Middleware, Service } from 'moleculer';
import { pino, type Logger as PinoInstance, type LoggerOptions } from 'pino';

const current = new AsyncLocalStorage<Context>();

type LoggedMeta = { requestId?: string; auth?: { organizationId?: string } };

/** Ids of the request whose action is running now, for the log line being written. */
export function logContext(): { requestId?: string; organizationId?: string } {
  const meta = current.getStore()?.meta as LoggedMeta | undefined;
  if (!meta) return {};
  return {
    ...(meta.requestId ? { requestId: meta.requestId } : {}),
    ...(meta.auth?.organizationId ? { organizationId: meta.auth.organizationId } : {}),
  };
}

/** Enters each local action's context for its log lines (only installed with JSON logs). */
export const LogContextMiddleware: Middleware = {
  name: 'LogContext',
  localAction(next: ActionHandler) {
    return function withLogContext(this: Service, ctx: Context) {
      return current.run(ctx, () => next.call(this, ctx));
    };
  },
};

/** Field names whose values never reach a log line, wherever they sit in a logged object. */
const SECRET_FIELDS = ['authorization', 'apiKey', 'key', 'secret', 'clientSecret', 'client_secret', 'password', 'token', 'accessToken', 'access_token', 'signingSecret', 'content', 'xml', 'document', 'file', 'payload'];

export function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    mixin: logContext,
    redact: { paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]), censor: '[redacted]' },
  };
}

let root: PinoInstance | undefined;

/**
 * Moleculer's Pino logger calls `pino[level](...args)` with the arguments as given; our code
 * writes `logger.warn('message:', err)`, which Pino would read as a format string and drop the
 * error. Each line is written as `{ ...fields, msg, err? }`: a plain object given first becomes
 * fields of the line (`logger.info({ status }, 'request')`), strings are joined, the first Error
 * is serialized as `err` (name, message, code, stack), anything else is inspected shallowly.
 */
export function createPinoLogger(level: string, bindings: Record<string, unknown>): Record<string, (...args: unknown[]) => void> {
  root ??= pino(pinoOptions('trace'));
  const child = root.child(bindings, { level });
  const write = (type: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace') => (...args: unknown[]) => {
    const first = args[0];
    const fields = first !== null && typeof first === 'object' && Object.getPrototypeOf(first) === Object.prototype ? (args.shift() as Record<string, unknown>) : {};
    const err = args.find((a): a is Error => a instanceof Error);
    const msg = args.filter((a) => a !== err).map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 2, breakLength: Infinity }))).join(' ');
    child[type](err ? { ...fields, err } : fields, msg);
  };
  return { fatal: write('fatal'), error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), trace: write('trace') };
}
