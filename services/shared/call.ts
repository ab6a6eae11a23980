import type { Context, ServiceBroker, CallingOptions } from 'moleculer';
import type { ActionContract } from './contract.ts';

/**
 * The one way to call another service: typed by the callee's contract, so neither the action name
 * nor the result is a bare string or `any`.
 */
export function call<P, R>(caller: Context | ServiceBroker, contract: ActionContract<P, R>, params: P, options?: CallingOptions): Promise<R> {
  return caller.call<R, P>(contract.action, params, options);
}
