/**
 * Broker middleware: while an HTTP request is handled, every action run on its behalf (at any
 * depth, in any process) appends `{action, durationMs, level, errorCode?}` to `ctx.meta.$calls`.
 * The gateway opts a request in by setting `$calls` to an array right before calling the action;
 * Moleculer merges a callee's meta back into its caller (locally and over the transporter), so
 * the gateway reads the whole trace there once the action answers (request log: upstream calls).
 * Limitation: two calls to remote nodes running at the same time each send back their own copy,
 * and the last one merged wins.
 */
import type { ActionHandler, ActionSchema, Context, Middleware, Service } from 'moleculer';
import { specCodeOf } from './errors.ts';

export interface TracedCall {
  action: string;
  durationMs: number;
  /** Call depth: 1 for the action the route maps to, 2 for what it calls, … */
  level: number;
  errorCode?: string;
}

type TracedMeta = { $calls?: TracedCall[] };

export const CallTraceMiddleware: Middleware = {
  name: 'CallTrace',
  localAction(next: ActionHandler, action: ActionSchema) {
    return async function traced(this: Service, ctx: Context) {
      const meta = ctx.meta as TracedMeta;
      if (!Array.isArray(meta.$calls)) return next.call(this, ctx);
      const t0 = performance.now();
      const record = (errorCode?: string) => {
        const calls = (ctx.meta as TracedMeta).$calls;
        if (Array.isArray(calls)) calls.push({ action: action.name ?? 'unknown', durationMs: +(performance.now() - t0).toFixed(3), level: ctx.level, ...(errorCode ? { errorCode } : {}) });
      };
      try {
        const result = await next.call(this, ctx);
        record();
        return result;
      } catch (err) {
        record(specCodeOf(err) ?? ((err as { type?: unknown })?.type as string | undefined) ?? 'INTERNAL_ERROR');
        throw err;
      }
    };
  },
};
